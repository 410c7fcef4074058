"""Reads one Jan thread (`threads/<id>/thread.json` and its `messages.jsonl`): the thread's assistant instructions as
the session's prompt, messages' text parts (with `{"value": ...}` or plain), reasoning (`reasoning` items, or
`<think>` tags in older replies) as thinking, tool calls (`tool_call` items with their output, or in an older reply's
`metadata.tool_calls` with their responses), and images embedded as data: URLs as attachments."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from domain.importers.markup import (
    Reply,
    ToolRound,
    data_url,
    dict_of,
    epoch,
    list_of,
    reply_messages,
    split_markup,
    text_of,
)
from domain.importers.model import FileRef, ImportedConversation, expect, ordered
from domain.models import Message, MessageType

PREFIX = "jan-"


def conversation(thread: Any, messages: list[Any], where: str) -> ImportedConversation:
    """A thread (its decoded thread.json) and its messages (messages.jsonl's lines, decoded)."""
    expect(thread, dict, f"{where}/thread.json", "a thread object")
    source_id = expect(thread.get("id"), str, f"{where}/thread.json id", "the thread's id")
    sid = PREFIX + source_id
    # a thread Jan has not changed since it made it has only `updated` (seconds)
    created = epoch(thread.get("created") or thread.get("updated"), f"{where}/thread.json created")
    assistants = thread.get("assistants") if isinstance(thread.get("assistants"), list) else []
    first = assistants[0] if assistants and isinstance(assistants[0], dict) else {}
    model = (first.get("model") or {}).get("id") if isinstance(first.get("model"), dict) else None
    files: list[FileRef] = []
    out: list[Message] = []
    tails: dict[str, str] = {}  # a source message's id -> the last stored message it became
    branched = _branched(messages)
    for i, raw in enumerate(messages):
        at = f"{where}/messages.jsonl line {i + 1}"
        expect(raw, dict, at, "a message object")
        parent = out[-1].id if out else None
        if branched:  # Jan's versions: metadata.parentId (null: a root); unlinked ones follow the line before
            link = dict_of(raw, "metadata").get("parentId", ...)
            parent = tails.get(link) if isinstance(link, str) else None if link is None else parent
        base = Message(id=f"{sid}/{raw.get('id') or i}", session_id=sid, type=MessageType.USER, active=False,
                       created_at=epoch(raw.get("created_at") or raw.get("created"), f"{at}.created_at", created),
                       parent_id=parent)
        built = _pieces(raw, base, model, files)
        out += built
        if built:
            tails[str(raw.get("id"))] = built[-1].id
    leaf = tails.get(_active_leaf(messages) or "") if branched else out[-1].id if out else None
    instructions = first.get("instructions")
    title = thread.get("title") if isinstance(thread.get("title"), str) and thread["title"].strip() else "Jan chat"
    return ImportedConversation(
        session_id=sid, title=title, created_at=created,
        updated_at=epoch(thread.get("updated"), f"{where}/thread.json updated", created),
        messages=ordered(out, where), leaf_id=leaf,
        system_prompt=instructions.strip() if isinstance(instructions, str) and instructions.strip() else None,
        files=tuple(files))


def _branched(messages: list[Any]) -> bool:
    """Whether the thread keeps versions (Jan's `hasBranching`: any message with `parentId` or `activeChildId`)."""
    return any(isinstance(m, dict) and {"parentId", "activeChildId"} & dict_of(m, "metadata").keys() for m in messages)


def _active_leaf(messages: list[Any]) -> str | None:
    """The last message of the path Jan shows (`computeActivePath`): from the newest root, each message's
    `activeChildId` if it is one of its children, else its newest child."""
    found = [m for m in messages if isinstance(m, dict) and m.get("id")]

    def children(parent: str | None) -> list[dict[str, Any]]:
        kids = [m for m in found if dict_of(m, "metadata").get("parentId", ...) == parent]
        return sorted(kids, key=lambda m: m.get("created_at") or 0)

    path = children(None)[-1:]
    seen: set[str] = set()
    while path and str(path[-1]["id"]) not in seen:
        seen.add(str(path[-1]["id"]))
        kids = children(str(path[-1]["id"]))
        chosen = dict_of(path[-1], "metadata").get("activeChildId")
        path += [next((k for k in kids if k["id"] == chosen), kids[-1])] if kids else []
        if not kids:
            break
    return str(path[-1]["id"]) if path else None


def _text(part: dict[str, Any]) -> str:
    value = part.get("text")
    if isinstance(value, dict):
        value = value.get("value")
    return value if isinstance(value, str) else ""


def _result(response: Any) -> str | None:
    """A tool call's response as text (None: it never returned)."""
    if response is None or isinstance(response, str):
        return response
    if isinstance(response, dict):
        return "\n".join(_text(p) for p in list_of(response, "content") if isinstance(p, dict))
    return json.dumps(response, ensure_ascii=False)


def _pieces(raw: dict[str, Any], base: Message, model: Any, files: list[FileRef]) -> list[Message]:
    parts = list_of(raw, "content") or [{"type": "text", "text": text_of(raw, "content")}]
    texts = [_text(p) for p in parts if isinstance(p, dict) and p.get("type") == "text"]
    role = raw.get("role")
    if role == "user":
        lines = []
        for n, p in enumerate(parts):
            if isinstance(p, dict) and p.get("type") == "image_url":
                line = f"[image {n + 1} (not in the thread folder)]"
                lines.append(line)
                embedded = data_url(dict_of(p, "image_url").get("url"))
                if embedded is not None:
                    files.append(FileRef(base.id, f"{base.id}#{n}", f"image-{n + 1}.{embedded[0].rsplit('/', 1)[-1]}",
                                         (line,), embedded[1]))
        return [replace(base, content="\n".join(t for t in [*texts, *lines] if t))]
    if role not in ("assistant", None):
        return []
    reply = Reply()
    for p in parts:  # a reply's items in order: text (older replies: reasoning in <think> tags), reasoning, tool_call
        kind = p.get("type") if isinstance(p, dict) else None
        if kind == "text":
            split_markup(_text(p), reply)
        elif kind == "reasoning" and _text(p).strip():
            reply.thinking.append(_text(p))
        elif kind == "tool_call":
            args = p.get("input")
            reply.rounds.append(ToolRound(str(p.get("tool_call_id") or f"call_{len(reply.rounds)}"),
                                          str(p.get("tool_name") or "tool"),
                                          args if isinstance(args, str) else json.dumps(args or {}, ensure_ascii=False),
                                          _result(p.get("output"))))
    metadata = dict_of(raw, "metadata")
    for n, call in enumerate(list_of(metadata, "tool_calls")):
        if not isinstance(call, dict):
            continue
        tool = dict_of(call, "tool") or call
        function = dict_of(tool, "function")
        args = function.get("arguments")
        reply.rounds.append(ToolRound(str(tool.get("id") or f"call_{n}"), str(function.get("name") or "tool"),
                                      args if isinstance(args, str) else json.dumps(args or {}, ensure_ascii=False),
                                      _result(call.get("response"))))
    used = metadata.get("model") or dict_of(metadata, "assistant").get("model")
    name = used.get("id") if isinstance(used, dict) else used if isinstance(used, str) else model
    return reply_messages(base, reply, name if isinstance(name, str) else None)
