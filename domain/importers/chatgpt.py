"""Reads ChatGPT's export (conversations.json): each conversation's `mapping` tree, `current_node`, and content of
every kind (text, code, multimodal text with image pointers, tool calls and results; anything else kept as text)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from domain.importers.model import ImportedConversation, MalformedExport, expect, load_json, ordered, when
from domain.models import Message, MessageType, ToolStatus

PREFIX = "chatgpt-"


def read_chatgpt(text: str) -> list[ImportedConversation]:
    """Every conversation of the export; MalformedExport (with where) for anything it cannot read."""
    data = load_json(text)
    expect(data, list, "the top level", "a list of conversations")
    return [conversation(item, f"conversations[{i}]") for i, item in enumerate(data)]


def conversation(item: Any, where: str) -> ImportedConversation:
    """One conversation of the export (its decoded JSON at `where`); MalformedExport for what it cannot read."""
    expect(item, dict, where, "a conversation object")
    source_id = item.get("conversation_id") or item.get("id")
    expect(source_id, str, f"{where}.id", "the conversation's id")
    mapping = expect(item.get("mapping"), dict, f"{where}.mapping", "an object of message nodes")
    session_id = PREFIX + source_id
    created = when(item.get("create_time"), f"{where}.create_time")
    kept: dict[str, Message] = {}
    parents: dict[str, str | None] = {}
    for node_id, node in mapping.items():
        at = f"{where}.mapping[{node_id!r}]"
        expect(node, dict, at, "a message node")
        parent = node.get("parent")
        if parent is not None and (not isinstance(parent, str) or parent not in mapping):
            raise MalformedExport(f"{at}.parent", f"a parent that is not in the mapping ({parent!r})")
        parents[node_id] = parent
    order = sorted(mapping, key=lambda n: _node_time(mapping[n]))
    for node_id in order:
        message = mapping[node_id].get("message")
        if message is None:
            continue
        at = f"{where}.mapping[{node_id!r}].message"
        built = _message(expect(message, dict, at, "a message object"), at, session_id, node_id, created)
        if built is not None:
            kept[node_id] = built
    messages = _link(kept, parents, session_id)
    leaf = item.get("current_node")
    if leaf is not None and (not isinstance(leaf, str) or leaf not in mapping):
        raise MalformedExport(f"{where}.current_node", f"a node that is not in the mapping ({leaf!r})")
    leaf_id = _kept_ancestor(leaf, kept, parents) if leaf else None
    leaf_id = f"{session_id}/{leaf_id}" if leaf_id else (messages[-1].id if messages else None)
    title = item.get("title") if isinstance(item.get("title"), str) and item.get("title").strip() else "ChatGPT chat"
    return ImportedConversation(
        session_id=session_id, title=title, created_at=created,
        updated_at=when(item.get("update_time"), f"{where}.update_time", created),
        messages=ordered(messages, f"{where}.mapping"), leaf_id=leaf_id,
    )


def _node_time(node: Any) -> float:
    message = node.get("message") if isinstance(node, dict) else None
    at = message.get("create_time") if isinstance(message, dict) else None
    return float(at) if isinstance(at, int | float) and not isinstance(at, bool) else 0.0


def _kept_ancestor(node: str | None, kept: dict[str, Message], parents: dict[str, str | None]) -> str | None:
    seen = 0
    while node is not None and node not in kept and seen <= len(parents):
        node, seen = parents.get(node), seen + 1
    return node if node in kept else None


def _link(kept: dict[str, Message], parents: dict[str, str | None], session_id: str) -> list[Message]:
    """Each kept message under its nearest kept ancestor; a tool result under its call (one is made when the
    export has none right above it: the model may only see results of calls it made)."""
    out: list[Message] = []
    for node_id, message in kept.items():
        parent = _kept_ancestor(parents.get(node_id), kept, parents)
        parent_id = f"{session_id}/{parent}" if parent else None
        if message.type is MessageType.TOOL_RESULT:
            call = kept.get(parent) if parent else None
            if call is not None and call.type is MessageType.TOOL_CALL:
                message = replace(message, tool_call_id=call.tool_call_id)
            else:
                made = Message(id=f"{message.id}#call", session_id=session_id, type=MessageType.TOOL_CALL,
                               created_at=message.created_at, tool_call_id=f"call_{node_id}",
                               tool_name=message.tool_name, tool_input="{}", parent_id=parent_id, active=False)
                out.append(made)
                parent_id = made.id
                message = replace(message, tool_call_id=made.tool_call_id)
        out.append(replace(message, parent_id=parent_id))
    return out


def _message(message: dict[str, Any], at: str, session_id: str, node_id: str, default_time: Any) -> Message | None:
    author = expect(message.get("author"), dict, f"{at}.author", "an author object")
    role = expect(author.get("role"), str, f"{at}.author.role", "a role")
    content = expect(message.get("content"), dict, f"{at}.content", "a content object")
    text = content_text(content, f"{at}.content")
    if role == "system" and not text.strip():
        return None
    metadata: dict[str, Any] = message["metadata"] if isinstance(message.get("metadata"), dict) else {}
    notes = [_attachment_note(a) for a in metadata.get("attachments") or [] if isinstance(a, dict)]
    if notes:
        text = "\n".join([text, *notes]) if text else "\n".join(notes)
    common: dict[str, Any] = {"id": f"{session_id}/{node_id}", "session_id": session_id, "active": False,
              "created_at": when(message.get("create_time"), f"{at}.create_time", default_time)}
    model = metadata.get("model_slug") if isinstance(metadata.get("model_slug"), str) else None
    recipient = message.get("recipient") or "all"
    if role == "user":
        return Message(type=MessageType.USER, content=text, **common)
    if role == "tool":
        name = author.get("name") if isinstance(author.get("name"), str) else "tool"
        return Message(type=MessageType.TOOL_RESULT, tool_name=name, tool_output=text,
                       tool_status=ToolStatus.SUCCESS, **common)
    if role == "assistant" and recipient != "all":
        return Message(type=MessageType.TOOL_CALL, tool_name=str(recipient), tool_call_id=f"call_{node_id}",
                       tool_input=json.dumps({"input": text}, ensure_ascii=False), model_id=model,
                       provider_id="openai" if model else None, **common)
    if role == "system":
        text = f"[ChatGPT system message]\n{text}"
    return Message(type=MessageType.AI_RESPONSE, content=text, model_id=model,
                   provider_id="openai" if model else None, **common)


def content_text(content: dict[str, Any], at: str) -> str:
    """The text of one ChatGPT content object; kinds this reader does not know are kept as text with a note."""
    kind = content.get("content_type")
    if kind == "text":
        parts = expect(content.get("parts", []), list, f"{at}.parts", "a list of parts")
        return "\n".join(_part(p, f"{at}.parts[{i}]") for i, p in enumerate(parts))
    if kind == "multimodal_text":
        parts = expect(content.get("parts", []), list, f"{at}.parts", "a list of parts")
        return "\n".join(_part(p, f"{at}.parts[{i}]") for i, p in enumerate(parts))
    if kind == "code":
        code = expect(content.get("text", ""), str, f"{at}.text", "the code as a string")
        return f"```{content.get('language') or ''}\n{code}\n```".replace("```unknown", "```")
    if kind in ("execution_output", "system_error", "reasoning_recap") and isinstance(
            content.get("text", content.get("content")), str):
        return str(content.get("text", content.get("content")))
    if kind == "tether_quote":
        return "\n".join(str(content.get(k)) for k in ("title", "url", "text") if content.get(k))
    if kind == "tether_browsing_display":
        return "\n".join(str(content.get(k)) for k in ("summary", "result") if content.get(k))
    return f"[ChatGPT content of type {kind!r}, kept as text]\n" + json.dumps(content, ensure_ascii=False)


def _part(part: Any, at: str) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        kind = part.get("content_type")
        if kind == "image_asset_pointer":
            return f"[image: {part.get('asset_pointer', 'not included in the export')}]"
        if kind == "audio_transcription" and isinstance(part.get("text"), str):
            return str(part["text"])
        return f"[ChatGPT part of type {kind!r}, kept as text] " + json.dumps(part, ensure_ascii=False)
    raise MalformedExport(at, "expected a text part or an object")


def _attachment_note(attachment: dict[str, Any]) -> str:
    name = attachment.get("name") or attachment.get("id") or "file"
    kind = f", {attachment['mimeType']}" if attachment.get("mimeType") else ""
    return f"[attachment: {name} (file id {attachment.get('id', '?')}{kind}; the file itself is not in the export)]"
