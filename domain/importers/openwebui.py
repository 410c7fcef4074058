"""Reads Open WebUI's chat export (Settings → Chats → Export, or one chat's JSON download): a list of chats, each
with its message tree (`history.messages` by id with `parentId`, `currentId` the open leaf); replies' reasoning and
tool calls from their `output` items (0.6+) or from the `<details>` blocks in their text (earlier versions);
images embedded as data: URLs become attachments."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from domain.importers.markup import (
    Reply,
    ToolRound,
    data_url,
    epoch,
    reply_messages,
    split_markup,
    stable_id,
    text_of,
)
from domain.importers.model import FileRef, ImportedConversation, expect, load_json, ordered
from domain.models import Message, MessageType

PREFIX = "openwebui-"


def read_openwebui(text: str) -> list[ImportedConversation]:
    """Every chat of the export (a list of chats, or one chat); MalformedExport (with where) for what it cannot
    read."""
    data = load_json(text)
    items = data if isinstance(data, list) else [data]
    return [conversation(item, f"chats[{i}]") for i, item in enumerate(items)]


def conversation(item: Any, where: str) -> ImportedConversation:
    """One chat of the export (its decoded JSON at `where`)."""
    expect(item, dict, where, "a chat object")
    chat = item["chat"] if isinstance(item.get("chat"), dict) else item
    history = chat.get("history") if isinstance(chat.get("history"), dict) else {}
    raw = history.get("messages")
    if not isinstance(raw, dict):  # an early export: the messages as a list
        listed = expect(chat.get("messages", []), list, f"{where}.chat.messages", "a list of messages")
        raw = {str(m.get("id") or i): m for i, m in enumerate(listed) if isinstance(m, dict)}
    source_id = item.get("id") if isinstance(item.get("id"), str) else stable_id(chat.get("title"), sorted(raw))
    sid = PREFIX + source_id
    created = epoch(item.get("created_at") or chat.get("timestamp"), f"{where}.created_at")
    files: list[FileRef] = []
    pieces: dict[str, list[Message]] = {}
    parents: dict[str, str | None] = {}
    for key, message in raw.items():
        at = f"{where}.chat.history.messages[{key!r}]"
        expect(message, dict, at, "a message object")
        parents[key] = message.get("parentId") if isinstance(message.get("parentId"), str) else None
        base = Message(id=f"{sid}/{key}", session_id=sid, type=MessageType.USER, active=False,
                       created_at=epoch(message.get("timestamp"), f"{at}.timestamp", created))
        pieces[key] = _pieces(message, base, at, files)
    tails = {k: v[-1].id for k, v in pieces.items() if v}
    messages: list[Message] = []
    for key, built in pieces.items():
        if built:
            head = replace(built[0], parent_id=tails.get(parents[key] or ""))
            messages += [head, *built[1:]]
    leaf = tails.get(history.get("currentId") or "") or (messages[-1].id if messages else None)
    prompt = (chat.get("params") or {}).get("system") if isinstance(chat.get("params"), dict) else None
    prompt = prompt or chat.get("system")
    title = item.get("title") or chat.get("title")
    return ImportedConversation(
        session_id=sid, title=title if isinstance(title, str) and title.strip() else "Open WebUI chat",
        created_at=created, updated_at=epoch(item.get("updated_at"), f"{where}.updated_at", created),
        messages=ordered(messages, f"{where}.chat.history"), leaf_id=leaf,
        system_prompt=prompt.strip() if isinstance(prompt, str) and prompt.strip() else None, files=tuple(files),
    )


def _pieces(message: dict[str, Any], base: Message, at: str, files: list[FileRef]) -> list[Message]:
    role = message.get("role")
    text = text_of(message, "content")
    if role == "user":
        return [replace(base, content=_with_files(text, message.get("files"), base.id, files))]
    if role == "system":
        return [replace(base, type=MessageType.AI_RESPONSE, content="",
                        thinking_content=f"[Open WebUI system message, not sent]\n{text}")] if text.strip() else []
    output = message.get("output")
    reply = _from_output(output) if isinstance(output, list) and output else split_markup(text)
    return reply_messages(base, reply, text_of(message, "model") or None)


def _from_output(items: list[Any]) -> Reply:
    """A reply from Open WebUI's `output` items (Responses-style: reasoning, function_call, its output, message)."""
    reply = Reply()
    calls: dict[str, ToolRound] = {}
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "reasoning":
            reply.thinking.append(_texts(item.get("content")) or _texts(item.get("summary")))
        elif kind == "function_call":
            call_id = str(item.get("call_id") or item.get("id") or f"call_{len(calls)}")
            calls[call_id] = ToolRound(call_id, str(item.get("name") or "tool"), str(item.get("arguments") or "{}"))
            reply.rounds.append(calls[call_id])
        elif kind == "function_call_output":
            call = calls.get(str(item.get("call_id")))
            if call is not None:
                out = item.get("output")
                call.result = out if isinstance(out, str) else _texts(out)
                call.failed = item.get("status") == "failed"
        elif kind == "message":
            split_markup(_texts(item.get("content")), reply)
    return reply


def _texts(parts: Any) -> str:
    if isinstance(parts, str):
        return parts
    if not isinstance(parts, list):
        return ""
    return "\n".join(str(p.get("text")) for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))


def _with_files(text: str, raw: Any, message_id: str, files: list[FileRef]) -> str:
    lines = []
    for n, f in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(f, dict):
            continue
        name = str(f.get("name") or (f.get("file") or {}).get("filename") or f"{f.get('type') or 'file'}-{n + 1}")
        embedded = data_url(f.get("url"))
        line = f"[attachment: {name} (not in the export)]"
        lines.append(line)
        if embedded is not None:
            media, data = embedded
            name = name if "." in name else f"{name}.{media.rsplit('/', 1)[-1]}"
            files.append(FileRef(message_id, str(f.get("id") or f"{message_id}#{n}"), name, (line,), data))
    return "\n".join([text, *lines]) if text and lines else (text or "\n".join(lines))
