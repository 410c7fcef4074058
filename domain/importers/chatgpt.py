"""Reads ChatGPT's export (conversations.json): each conversation's `mapping` tree, `current_node`, and content of
every kind. Custom instructions become the session's system prompt; hidden nodes (memory, context) and reasoning
(`thoughts`, `reasoning_recap`) are kept as reasoning, never sent; code-interpreter calls keep their code and
language; uploads are named as files the export's archive may hold."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from domain.importers.chatgpt_content import (
    HIDDEN_KINDS,
    attachment_line,
    code_input,
    content_text,
    file_id,
    image_line,
    instructions,
)
from domain.importers.model import FileRef, ImportedConversation, MalformedExport, expect, load_json, ordered, when
from domain.models import Message, MessageType, ReasoningBlock, ReasoningKind, ToolStatus
from domain.settings import MAX_SYSTEM_PROMPT_CHARS

PREFIX = "chatgpt-"
REASONING_OWNER = "chatgpt-export"  # the provider id of imported reasoning: no real provider has it, so none is sent
__all__ = ["PREFIX", "content_text", "conversation", "read_chatgpt"]


def read_chatgpt(text: str) -> list[ImportedConversation]:
    """Every conversation of the export; MalformedExport (with where) for anything it cannot read."""
    data = load_json(text)
    expect(data, list, "the top level", "a list of conversations")
    found = (conversation(item, f"conversations[{i}]") for i, item in enumerate(data))
    return [c for c in found if c is not None]


def conversation(item: Any, where: str) -> ImportedConversation | None:
    """One conversation of the export (its decoded JSON at `where`); None for an entry without a `mapping` (exports
    hold such entries for folders and projects); MalformedExport for what it cannot read."""
    expect(item, dict, where, "a conversation object")
    if "mapping" not in item:
        return None
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
    prompt: list[str] = []
    files: list[FileRef] = []
    for node_id in sorted(mapping, key=lambda n: _node_time(mapping[n])):
        message = mapping[node_id].get("message")
        if message is None:
            continue
        at = f"{where}.mapping[{node_id!r}].message"
        expect(message, dict, at, "a message object")
        content = expect(message.get("content"), dict, f"{at}.content", "a content object")
        if content.get("content_type") == "user_editable_context":
            text = instructions(content)
            if text and text not in prompt:
                prompt.append(text)
            continue
        built = _message(message, content, at, session_id, node_id, created, files)
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
        system_prompt="\n\n".join(prompt)[:MAX_SYSTEM_PROMPT_CHARS] or None, files=tuple(files),
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
            call = _call_above(parent, kept, parents)
            if call is not None:
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


def _call_above(parent: str | None, kept: dict[str, Message], parents: dict[str, str | None]) -> Message | None:
    """The tool call a result answers: its kept parent when that is a call."""
    call = kept.get(parent) if parent else None
    return call if call is not None and call.type is MessageType.TOOL_CALL else None


def _message(message: dict[str, Any], content: dict[str, Any], at: str, session_id: str, node_id: str,
             default_time: Any, files: list[FileRef]) -> Message | None:
    author = expect(message.get("author"), dict, f"{at}.author", "an author object")
    role = expect(author.get("role"), str, f"{at}.author.role", "a role")
    text = content_text(content, f"{at}.content")
    kind = content.get("content_type")
    metadata: dict[str, Any] = message["metadata"] if isinstance(message.get("metadata"), dict) else {}
    model = metadata.get("model_slug") if isinstance(metadata.get("model_slug"), str) else None
    common: dict[str, Any] = {"id": f"{session_id}/{node_id}", "session_id": session_id, "active": False,
                              "created_at": when(message.get("create_time"), f"{at}.create_time", default_time)}
    hidden = metadata.get("is_visually_hidden_from_conversation") is True or kind in HIDDEN_KINDS
    if hidden or kind in ("thoughts", "reasoning_recap"):
        return _reasoning(text, kind, role, hidden, metadata, model, common)
    if role == "system" and not text.strip():
        return None
    recipient = message.get("recipient") or "all"
    if role == "user":
        return Message(type=MessageType.USER, content=_with_files(text, content, metadata, common["id"], files),
                       **common)
    if role == "tool":
        name = author.get("name") if isinstance(author.get("name"), str) else "tool"
        return Message(type=MessageType.TOOL_RESULT, tool_name=name, tool_output=text,
                       tool_status=ToolStatus.SUCCESS, **common)
    by: dict[str, Any] = {"model_id": model, "provider_id": "openai" if model else None}
    if role == "assistant" and recipient != "all":
        code = code_input(content)
        return Message(type=MessageType.TOOL_CALL, tool_name=str(recipient), tool_call_id=f"call_{node_id}",
                       tool_input=code if code is not None else _as_input(text), **by, **common)
    if role == "system":
        text = f"[ChatGPT system message]\n{text}"
    return Message(type=MessageType.AI_RESPONSE, content=text, **by, **common)


def _as_input(text: str) -> str:
    return json.dumps({"input": text}, ensure_ascii=False)


def _reasoning(text: str, kind: Any, role: str, hidden: bool, metadata: dict[str, Any], model: str | None,
               common: dict[str, Any]) -> Message | None:
    """A node shown in the Thinking section and never sent: the model's thoughts, or a node ChatGPT hid (memory,
    context); stored as a reply without text whose reasoning is bound to no real provider."""
    if not text.strip():
        return None
    if hidden and kind not in ("thoughts", "reasoning_recap"):
        text = f"[Hidden in ChatGPT ({role}, {kind}): kept, never sent]\n{text}"
    seconds = metadata.get("finished_duration_sec")
    block = ReasoningBlock(ReasoningKind.THINKING, text=text, provider_id=REASONING_OWNER, model_id=model)
    return Message(type=MessageType.AI_RESPONSE, content="", thinking_content=text, reasoning=(block,),
                   thinking_ms=int(seconds * 1000) if isinstance(seconds, int | float) else None, model_id=model,
                   **common)


def _with_files(text: str, content: dict[str, Any], metadata: dict[str, Any], message_id: str,
                files: list[FileRef]) -> str:
    """The user's text with a placeholder line per file, each also noted as a file the archive may hold."""
    lines: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for part in content.get("parts") or []:
        if isinstance(part, dict) and part.get("content_type") == "image_asset_pointer" and part.get("asset_pointer"):
            pointer = str(part["asset_pointer"])
            lines.setdefault(file_id(pointer), []).append(image_line(pointer))
    notes = []
    for a in metadata.get("attachments") or []:
        if isinstance(a, dict):
            notes.append(attachment_line(a))
            if isinstance(a.get("id"), str):
                lines.setdefault(a["id"], []).append(notes[-1])
                names[a["id"]] = str(a.get("name") or a["id"])
    files += [FileRef(message_id, fid, names.get(fid, fid), tuple(found)) for fid, found in lines.items()]
    return "\n".join([text, *notes]) if text else "\n".join(notes)
