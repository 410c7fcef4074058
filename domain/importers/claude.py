"""Reads Claude's export (conversations.json): `chat_messages` with `sender`, `content` blocks (text, thinking,
tool use and results; anything else kept as text), `attachments` and `files`; branches by `parent_message_uuid`."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from domain.importers.model import ImportedConversation, MalformedExport, expect, load_json, ordered, when
from domain.models import Message, MessageType, ToolStatus

PREFIX = "claude-"


def read_claude(text: str) -> list[ImportedConversation]:
    """Every conversation of the export; MalformedExport (with where) for anything it cannot read."""
    data = load_json(text)
    expect(data, list, "the top level", "a list of conversations")
    return [conversation(item, f"conversations[{i}]") for i, item in enumerate(data)]


def conversation(item: Any, where: str) -> ImportedConversation:
    """One conversation of the export (its decoded JSON at `where`); MalformedExport for what it cannot read."""
    expect(item, dict, where, "a conversation object")
    source_id = expect(item.get("uuid"), str, f"{where}.uuid", "the conversation's uuid")
    chat = expect(item.get("chat_messages", []), list, f"{where}.chat_messages", "a list of messages")
    session_id = PREFIX + source_id
    created = when(item.get("created_at"), f"{where}.created_at")
    tails: dict[str, str] = {}  # a chat message's uuid -> the id of the last message it was stored as
    pieces: list[tuple[str | None, list[Message]]] = []
    previous: str | None = None
    for i, raw in enumerate(chat):
        at = f"{where}.chat_messages[{i}]"
        expect(raw, dict, at, "a message object")
        uuid = expect(raw.get("uuid"), str, f"{at}.uuid", "the message's uuid")
        if uuid in tails:
            raise MalformedExport(f"{at}.uuid", f"a message uuid that an earlier message has too ({uuid!r})")
        parent = raw.get("parent_message_uuid", previous)
        built = _pieces(raw, at, session_id, uuid, created)
        pieces.append((parent if isinstance(parent, str) else None, built))
        tails[uuid] = built[-1].id
        previous = uuid
    messages: list[Message] = []
    for parent, built in pieces:
        head = replace(built[0], parent_id=tails.get(parent) if parent else None)
        messages += [head, *built[1:]]
    leaf_uuid = item.get("current_leaf_message_uuid")
    leaf_id = tails.get(leaf_uuid) if isinstance(leaf_uuid, str) else None
    if leaf_id is None and messages:
        leaf_id = tails[previous] if previous else None
    name = item.get("name")
    return ImportedConversation(
        session_id=session_id, title=name if isinstance(name, str) and name.strip() else "Claude chat",
        created_at=created, updated_at=when(item.get("updated_at"), f"{where}.updated_at", created),
        messages=ordered(messages, f"{where}.chat_messages"), leaf_id=leaf_id,
    )


def _pieces(raw: dict[str, Any], at: str, session_id: str, uuid: str, default_time: Any) -> list[Message]:
    """One chat message as stored messages: a user's text with its attachments, or a reply split at its tool
    calls and results (each piece under the one before it)."""
    sender = expect(raw.get("sender"), str, f"{at}.sender", "a sender")
    created = when(raw.get("created_at"), f"{at}.created_at", default_time)
    blocks = raw.get("content")
    if blocks is None:
        blocks = [{"type": "text", "text": expect(raw.get("text", ""), str, f"{at}.text", "text")}]
    expect(blocks, list, f"{at}.content", "a list of content blocks")
    base = Message(id=f"{session_id}/{uuid}", session_id=session_id, type=MessageType.USER, created_at=created,
                   active=False)
    if sender == "human":
        texts = [_block_text(b, f"{at}.content[{k}]") for k, b in enumerate(blocks)]
        notes = _attachments(raw, at)
        return [replace(base, content="\n\n".join(t for t in [*texts, *notes] if t))]
    if sender != "assistant":
        raise MalformedExport(f"{at}.sender", f"an unknown sender ({sender!r})")
    return _reply_pieces(base, blocks, at)


def _reply_pieces(base: Message, blocks: list[Any], at: str) -> list[Message]:
    out: list[Message] = []
    text: list[str] = []
    thinking: list[str] = []
    last_call: Message | None = None

    def add(message: Message) -> Message:
        stored = replace(message, id=base.id if not out else f"{base.id}#{len(out)}",
                         parent_id=out[-1].id if out else None)
        out.append(stored)
        return stored

    def flush() -> None:
        if text or thinking:
            add(replace(base, type=MessageType.AI_RESPONSE, content="\n\n".join(text),
                        thinking_content="\n\n".join(thinking) or None))
            text.clear()
            thinking.clear()

    for k, block in enumerate(blocks):
        where = f"{at}.content[{k}]"
        expect(block, dict, where, "a content block")
        kind = block.get("type")
        if kind == "thinking":
            thinking.append(str(block.get("thinking") or ""))
        elif kind == "tool_use":
            flush()
            call_id = block.get("id") if isinstance(block.get("id"), str) else f"call_{base.id}_{k}"
            last_call = add(replace(base, type=MessageType.TOOL_CALL, tool_call_id=call_id,
                                    tool_name=str(block.get("name") or "tool"),
                                    tool_input=json.dumps(block.get("input") or {}, ensure_ascii=False)))
        elif kind == "tool_result":
            flush()
            name = str(block.get("name") or (last_call.tool_name if last_call else "tool"))
            if last_call is None or out[-1] is not last_call:
                last_call = add(replace(base, type=MessageType.TOOL_CALL, tool_call_id=f"call_{base.id}_{k}",
                                        tool_name=name, tool_input="{}"))
            add(replace(base, type=MessageType.TOOL_RESULT, tool_call_id=last_call.tool_call_id, tool_name=name,
                        tool_output=_result_text(block.get("content"), where),
                        tool_status=ToolStatus.ERROR if block.get("is_error") else ToolStatus.SUCCESS))
        else:
            text.append(_block_text(block, where))
    flush()
    if not out:  # an empty reply is still a message of the conversation
        add(replace(base, type=MessageType.AI_RESPONSE, content=""))
    return out


def _block_text(block: Any, at: str) -> str:
    expect(block, dict, at, "a content block")
    if block.get("type") == "text":
        return str(expect(block.get("text", ""), str, f"{at}.text", "text"))
    return f"[Claude content of type {block.get('type')!r}, kept as text]\n" + json.dumps(block, ensure_ascii=False)


def _result_text(content: Any, at: str) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_block_text(b, f"{at}.content[{i}]") for i, b in enumerate(content))
    return json.dumps(content, ensure_ascii=False)


def _attachments(raw: dict[str, Any], at: str) -> list[str]:
    notes = []
    for i, a in enumerate(raw.get("attachments") or []):
        expect(a, dict, f"{at}.attachments[{i}]", "an attachment object")
        head = f"[attachment: {a.get('file_name') or 'file'}]"
        body = a.get("extracted_content")
        notes.append(f"{head}\n{body}" if isinstance(body, str) and body else head)
    for i, f in enumerate(raw.get("files") or []):
        expect(f, dict, f"{at}.files[{i}]", "a file object")
        notes.append(f"[file: {f.get('file_name') or f.get('file_uuid') or 'file'} (not in the export)]")
    return notes
