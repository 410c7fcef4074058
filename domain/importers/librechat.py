"""Reads LibreChat's conversation export (the chat menu's Export, JSON): one conversation with its messages as a
tree (`messagesTree`/`messages` with `children`, when `recursive`) or as a list linked by `parentMessageId`,
branches kept; agents' `content` parts (text, think, tool_call) as replies, reasoning and tool rounds; the
conversation's `promptPrefix` as its system prompt."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from domain.importers.markup import Reply, ToolRound, epoch, list_of, reply_messages, stable_id, text_of
from domain.importers.model import ImportedConversation, expect, load_json, ordered
from domain.models import Message, MessageType

PREFIX = "librechat-"
NO_PARENT = "00000000-0000-0000-0000-000000000000"


def read_librechat(text: str) -> list[ImportedConversation]:
    """The conversation of the export (or each of a list of them); MalformedExport for what it cannot read."""
    data = load_json(text)
    items = data if isinstance(data, list) else [data]
    return [conversation(item, f"conversations[{i}]" if isinstance(data, list) else "the conversation")
            for i, item in enumerate(items)]


def _flat(messages: list[Any], where: str) -> list[tuple[dict[str, Any], str]]:
    """Every message of a recursive tree (or a list), parents first, with where it is."""
    out: list[tuple[dict[str, Any], str]] = []
    stack = [(m, f"{where}[{i}]") for i, m in reversed(list(enumerate(messages)))]
    while stack:
        message, at = stack.pop()
        expect(message, dict, at, "a message object")
        out.append((message, at))
        children = message.get("children") if isinstance(message.get("children"), list) else []
        stack.extend((c, f"{at}.children[{k}]") for k, c in reversed(list(enumerate(children))))
    return out


def conversation(item: Any, where: str) -> ImportedConversation:
    """One exported conversation (its decoded JSON at `where`)."""
    expect(item, dict, where, "a conversation object")
    key = "messagesTree" if "messagesTree" in item else "messages"
    listed = expect(item.get(key, []), list, f"{where}.{key}", "a list of messages")
    flat = _flat(listed, f"{where}.{key}")
    source_id = item.get("conversationId") if isinstance(item.get("conversationId"), str) else stable_id(
        item.get("title"), [m.get("messageId") for m, _ in flat])
    sid = PREFIX + source_id
    options = item.get("options") if isinstance(item.get("options"), dict) else {}
    first = next((m.get("createdAt") for m, _ in flat if m.get("createdAt")), None)
    created = epoch(first, f"{where}.createdAt")
    pieces: dict[str, list[Message]] = {}
    parents: dict[str, str | None] = {}
    for message, at in flat:
        mid = expect(message.get("messageId"), str, f"{at}.messageId", "the message's id")
        parent = message.get("parentMessageId")
        parents[mid] = parent if isinstance(parent, str) and parent != NO_PARENT else None
        base = Message(id=f"{sid}/{mid}", session_id=sid, type=MessageType.USER, active=False,
                       created_at=epoch(message.get("createdAt"), f"{at}.createdAt", created))
        pieces[mid] = _pieces(message, base, options)
    tails = {k: v[-1].id for k, v in pieces.items() if v}
    messages: list[Message] = []
    for mid, built in pieces.items():
        messages += [replace(built[0], parent_id=tails.get(parents[mid] or "")), *built[1:]]
    children = {m.parent_id for m in messages}
    leaves = [m for m in messages if m.id not in children]
    leaf = max(leaves, key=lambda m: (m.created_at or created, m.id)).id if leaves else None
    prompt = options.get("promptPrefix") or item.get("promptPrefix")
    title = item.get("title")
    return ImportedConversation(
        session_id=sid, title=title if isinstance(title, str) and title.strip() else "LibreChat conversation",
        created_at=created, updated_at=max((m.created_at for m in messages if m.created_at), default=created),
        messages=ordered(messages, f"{where}.{key}"), leaf_id=leaf,
        system_prompt=prompt.strip() if isinstance(prompt, str) and prompt.strip() else None,
    )


def _pieces(message: dict[str, Any], base: Message, options: dict[str, Any]) -> list[Message]:
    by_user = message.get("isCreatedByUser")
    if by_user is None:
        by_user = str(message.get("sender") or "").lower() == "user"
    text = text_of(message, "text")
    parts = list_of(message, "content")
    if by_user:
        notes = [f"[attachment: {f.get('filename') or f.get('file_id') or 'file'} (not in the export)]"
                 for f in list_of(message, "files") if isinstance(f, dict)]
        return [replace(base, content="\n".join(t for t in [text or _part_texts(parts), *notes] if t))]
    if message.get("error") is True:
        return [replace(base, type=MessageType.ERROR, content=text or _part_texts(parts))]
    reply = _reply(parts) if parts else Reply(text=[text])
    model = message.get("model") or options.get("model")
    built = reply_messages(base, reply, model if isinstance(model, str) else None)
    if message.get("unfinished") is True:
        built[-1] = replace(built[-1], incomplete=True)
    return built


def _value(value: Any) -> str:
    """A part's text: a string, or the Assistants API's `{"value": ...}`."""
    if isinstance(value, dict):
        value = value.get("value")
    return value if isinstance(value, str) else ""


def _part_texts(parts: list[Any]) -> str:
    return "\n".join(_value(p.get("text")) for p in parts if isinstance(p, dict) and p.get("type") == "text")


def _reply(parts: list[Any]) -> Reply:
    reply = Reply()
    for n, part in enumerate(parts):
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            reply.text.append(_value(part.get("text")))
        elif kind == "think":
            reply.thinking.append(_value(part.get("think")))
        elif kind == "tool_call" and isinstance(part.get("tool_call"), dict):
            call = part["tool_call"]
            args = call.get("args") if "args" in call else call.get("arguments")
            output = call.get("output")
            reply.rounds.append(ToolRound(
                str(call.get("id") or f"call_{n}"), str(call.get("name") or call.get("type") or "tool"),
                args if isinstance(args, str) else _dump(args or {}),
                output if isinstance(output, str) or output is None else _dump(output)))
        elif kind in ("image_file", "image_url"):
            reply.text.append(f"[image from the reply: {kind} (not in the export)]")
    return reply


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
