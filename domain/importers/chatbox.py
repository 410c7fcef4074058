"""Reads Chatbox's backup (Settings → Backup → Export): the sessions under `session:<id>` (1.12+) or in
`chat-sessions` (earlier), each with its system message as the session's prompt, messages' content parts (text,
reasoning as thinking, tool calls with their results; images and files as lines, their bytes are not in a backup,
with an image's OCR text), forks as branches, and each earlier thread as a session of its own."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from domain.importers.markup import Reply, ToolRound, dict_of, epoch, list_of, reply_messages, text_of
from domain.importers.model import ImportedConversation, MalformedExport, expect, load_json, ordered
from domain.models import Message, MessageType

PREFIX = "chatbox-"


def read_chatbox(text: str) -> list[ImportedConversation]:
    """Every session of the backup (and every earlier thread of each); MalformedExport for what it cannot read."""
    data = load_json(text)
    expect(data, dict, "the top level", "a Chatbox backup object")
    sessions: dict[str, tuple[dict[str, Any], str]] = {}
    for key, value in data.items():
        if key.startswith("session:") and isinstance(value, dict):
            sessions[str(value.get("id") or key[8:])] = (value, f"[{key!r}]")
    for i, value in enumerate(data.get("chat-sessions") or []):
        if isinstance(value, dict) and str(value.get("id")) not in sessions:
            sessions[str(value.get("id") or i)] = (value, f"['chat-sessions'][{i}]")
    if not sessions and "chat-sessions-list" not in data and "chat-sessions" not in data:
        raise MalformedExport("the top level", "no Chatbox sessions (no `session:` or `chat-sessions` keys)")
    out: list[ImportedConversation] = []
    for sid, (session, where) in sessions.items():
        out += conversations(sid, session, where)
    return [c for c in out if c.messages]


def conversations(sid: str, session: dict[str, Any], where: str) -> list[ImportedConversation]:
    """A session as conversations: its current thread (with its forks) and each earlier thread."""
    name = text_of(session, "name").strip() or "Chatbox chat"
    out = [_one(PREFIX + sid, name, list_of(session, "messages"), session.get("messageForksHash"), where)]
    for k, thread in enumerate(list_of(session, "threads")):
        if isinstance(thread, dict):
            label = thread.get("name") or f"thread {k + 1}"
            out.append(_one(f"{PREFIX}{sid}-{thread.get('id') or k}", f"{name} ({label})", list_of(thread, "messages"),
                            session.get("messageForksHash"), f"{where}.threads[{k}]"))
    return out


def _one(sid: str, title: str, raw: list[Any], forks: Any, where: str) -> ImportedConversation:
    expect(raw, list, f"{where}.messages", "a list of messages")
    prompt: list[str] = []
    main = _chain(sid, raw, None, f"{where}.messages", prompt)
    messages = list(main)
    ids = {m.id for m in messages}
    for fork_id, fork in (forks.items() if isinstance(forks, dict) else []):
        anchor = _tail_of(sid, fork_id, messages)
        if anchor is None or not isinstance(fork, dict):
            continue
        for n, listed in enumerate(fork.get("lists") or []):
            if isinstance(listed, dict) and n != fork.get("position"):
                branch = _chain(sid, listed.get("messages") or [], anchor, f"{where}.messageForksHash", prompt)
                messages += [m for m in branch if m.id not in ids]
                ids.update(m.id for m in branch)
    created = min((m.created_at for m in messages if m.created_at), default=None)
    start = created or epoch(None, where)
    return ImportedConversation(
        session_id=sid, title=title, created_at=start,
        updated_at=max((m.created_at for m in messages if m.created_at), default=start),
        messages=ordered(messages, where), leaf_id=main[-1].id if main else None,
        system_prompt=prompt[0] if prompt else None)


def _tail_of(sid: str, source_id: str, messages: list[Message]) -> str | None:
    """The last stored message a source message became (a reply split at its tool calls ends later)."""
    head = f"{sid}/{source_id}"
    found = [m.id for m in messages if m.id == head or m.id.startswith(head + "#")]
    return found[-1] if found else None


def _chain(sid: str, raw: list[Any], parent: str | None, where: str, prompt: list[str]) -> list[Message]:
    out: list[Message] = []
    for i, message in enumerate(raw):
        at = f"{where}[{i}]"
        expect(message, dict, at, "a message object")
        if message.get("role") == "system":
            text = _text(message)
            if text.strip() and not prompt:
                prompt.append(text.strip())
            continue
        base = Message(id=f"{sid}/{message.get('id') or i}", session_id=sid, type=MessageType.USER, active=False,
                       created_at=epoch(message.get("timestamp"), f"{at}.timestamp") if message.get("timestamp")
                       else None, parent_id=out[-1].id if out else parent)
        out += _pieces(message, base)
    return out


def _text(message: dict[str, Any]) -> str:
    parts = message.get("contentParts")
    if isinstance(parts, list) and parts:
        return "\n".join(str(p.get("text") or "") for p in parts if isinstance(p, dict) and p.get("type") == "text")
    return text_of(message, "content")


def _tool_result(part: dict[str, Any]) -> str | None:
    """A tool call's result as text (None: it never returned); a failed call's is its error's message, which
    Chatbox stores as `{"error": {"name", "message", "stack"}, "input", "toolName"}` (or with the message alone)."""
    result = part.get("result")
    if part.get("state") == "call":
        return None
    if part.get("state") == "error" and isinstance(result, dict):
        error = result.get("error", result)
        message = error.get("message") if isinstance(error, dict) else error
        if isinstance(message, str) and message:
            return message
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


def _pieces(message: dict[str, Any], base: Message) -> list[Message]:
    parts = list_of(message, "contentParts")
    if not parts and isinstance(message.get("content"), str):  # before content parts (Chatbox < 1.9.x)
        parts = [{"type": "text", "text": message["content"]}]
        parts += [{"type": "image", "storageKey": p.get("storageKey") or p.get("url")}
                  for p in list_of(message, "pictures") if isinstance(p, dict)]
    reply = Reply()
    if isinstance(message.get("reasoningContent"), str):
        reply.thinking.append(message["reasoningContent"])
    for part in parts:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            reply.text.append(str(part.get("text") or ""))
        elif kind == "reasoning":
            reply.thinking.append(str(part.get("text") or ""))
        elif kind == "image":  # its OCR text, if any, as Chatbox sends it to a model without vision
            ocr = part.get("ocrResult")
            reply.text.append(f"[image: {part.get('storageKey') or part.get('url') or 'image'} (not in the backup)]"
                              + (f"\nThis is an image, OCR Result: \n{ocr}" if isinstance(ocr, str) and ocr else ""))
        elif kind == "tool-call":
            reply.rounds.append(ToolRound(
                str(part.get("toolCallId") or f"call_{len(reply.rounds)}"), str(part.get("toolName") or "tool"),
                json.dumps(part.get("args") or {}, ensure_ascii=False), _tool_result(part),
                failed=part.get("state") == "error"))
    notes = [f"[attachment: {f.get('name') or 'file'} (not in the backup)]" for f in list_of(message, "files")
             if isinstance(f, dict)]
    notes += [f"[link: {link.get('title') or ''} {link.get('url') or ''}]".replace("[link:  ", "[link: ")
              for link in list_of(message, "links") if isinstance(link, dict)]
    if message.get("role") == "user":
        return [replace(base, content="\n".join(t for t in [*reply.text, *notes] if t))]
    if message.get("error") and not any(t.strip() for t in reply.text):
        return [replace(base, type=MessageType.ERROR, content=str(message["error"]))]
    usage = dict_of(message, "usage")
    model = text_of(message, "model") if text_of(message, "model") not in ("", "unknown") else None
    built = reply_messages(base, reply, model)
    built[-1] = replace(built[-1], input_tokens=usage.get("inputTokens"), output_tokens=usage.get("outputTokens"))
    return built
