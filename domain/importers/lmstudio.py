"""Reads one LM Studio conversation file (`~/.lmstudio/conversations/<id>.conversation.json`): each message's
versions (the selected one on the path, the others as branches beside it), replies' steps (thinking blocks as
thinking, tool call requests and results as rounds: the files' flat parts or the SDK's nested ones, the model from
genInfo or senderInfo, its time from its first step's identifier), files as lines, and the system prompt; also the
older flat `{role, content}` messages."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import datetime
from typing import Any

from domain.importers.markup import Reply, ToolRound, dict_of, epoch, list_of, reply_messages, split_markup, text_of
from domain.importers.model import ImportedConversation, expect, ordered
from domain.models import Message, MessageType

PREFIX = "lmstudio-"
STEP_TIME = re.compile(r"^(\d{13})-")  # a step's identifier starts with its time in ms


def conversation(data: Any, source_id: str, where: str) -> ImportedConversation:
    """The conversation of one file (its decoded JSON; `source_id` from the file's name)."""
    expect(data, dict, where, "an LM Studio conversation object")
    sid = PREFIX + source_id
    created = epoch(data.get("createdAt"), f"{where}.createdAt")
    entries = expect(data.get("messages", []), list, f"{where}.messages", "a list of messages")
    messages: list[Message] = []
    parent: str | None = None
    last = created  # the time of the latest message on the open path: a question has no time of its own
    results = _tool_results(entries)
    for i, entry in enumerate(entries):
        at = f"{where}.messages[{i}]"
        expect(entry, dict, at, "a message object")
        versions = entry.get("versions") if isinstance(entry.get("versions"), list) else [entry]
        chosen = entry.get("currentlySelected") if isinstance(entry.get("currentlySelected"), int) else 0
        chosen = chosen if 0 <= chosen < len(versions) else len(versions) - 1
        next_parent, next_last = parent, last
        for n, version in enumerate(versions):
            if not isinstance(version, dict) or version.get("role") in ("system", "tool"):
                continue
            key = f"{sid}/{i}" if n == chosen else f"{sid}/{i}v{n}"
            when = _step_time(version, created) or last
            base = Message(id=key, session_id=sid, type=MessageType.USER, active=False, created_at=when,
                           parent_id=parent)
            built = _pieces(version, base, results)
            messages += built
            if n == chosen and built:
                next_parent, next_last = built[-1].id, when
        parent, last = next_parent, next_last
    title = data.get("name") if isinstance(data.get("name"), str) and data["name"].strip() else "LM Studio chat"
    stamps = [data.get(k) for k in ("userLastMessagedAt", "assistantLastMessagedAt")]
    updated = max([created, *(m.created_at for m in messages if m.created_at),
                   *(epoch(v, where) for v in stamps if isinstance(v, int) and not isinstance(v, bool) and v > 0)])
    return ImportedConversation(
        session_id=sid, title=title, created_at=created, updated_at=updated, messages=ordered(messages, where),
        leaf_id=parent, system_prompt=_prompt(data, entries))


def _step_time(version: dict[str, Any], created: datetime) -> datetime | None:
    """A reply's time: its first step's, from the step's identifier (none before the conversation began)."""
    steps = list_of(version, "steps")
    found = STEP_TIME.match(str(steps[0].get("stepIdentifier") or "")) if steps and isinstance(steps[0], dict) else None
    when = epoch(int(found[1]), "stepIdentifier") if found else None
    return when if when is not None and when >= created else None


def _tool_results(entries: list[Any]) -> dict[str, str]:
    """Tool results by call id, from the `tool` messages that carry them (each goes under its call)."""
    out: dict[str, str] = {}
    for entry in entries:
        for version in list_of(entry, "versions") or [entry]:
            if not isinstance(version, dict) or version.get("role") != "tool":
                continue
            parts = list_of(version, "content")
            for step in list_of(version, "steps"):
                parts = [*parts, *list_of(step, "content")]
            for p in parts:
                if isinstance(p, dict) and p.get("type") == "toolCallResult" and _call_id(p):
                    out[_call_id(p)] = _result_text(p.get("content"))
    return out


def _call_id(part: dict[str, Any]) -> str:
    """A tool call's id: `toolCallRequestId` (and the numeric `callId`) in the files' flat parts, `toolCallId` or the
    nested request's `id` in the SDK's chat history shape."""
    nested = dict_of(part, "toolCallRequest")
    found = part.get("toolCallRequestId") or part.get("toolCallId") or nested.get("id") or part.get("callId")
    return str(found) if found not in (None, "") else ""


def _result_text(content: Any) -> str:
    """A tool result's text; a result kept as a JSON list of content blocks (an MCP tool's) gives its texts."""
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False) if content else ""
    try:
        blocks = json.loads(text) if text.startswith("[") else None
    except ValueError:
        return text
    if isinstance(blocks, list) and blocks and all(isinstance(b, dict) and "type" in b for b in blocks):
        return "\n".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text")
    return text


def _prompt(data: dict[str, Any], entries: list[Any]) -> str | None:
    prompt = data.get("systemPrompt")
    for f in list_of(dict_of(data, "perChatPredictionConfig"), "fields"):
        if isinstance(f, dict) and f.get("key") == "llm.prediction.systemPrompt" and isinstance(f.get("value"), str):
            prompt = prompt or f["value"]
    for entry in entries:  # the older files: a system message first
        if isinstance(entry, dict) and entry.get("role") == "system" and isinstance(entry.get("content"), str):
            prompt = prompt or entry["content"]
    return prompt.strip() if isinstance(prompt, str) and prompt.strip() else None


def _parts_text(parts: Any) -> tuple[list[str], list[str]]:
    """The texts and the file lines of a content list (or a plain string)."""
    if isinstance(parts, str):
        return [parts], []
    texts, files = [], []
    for p in parts if isinstance(parts, list) else []:
        if isinstance(p, dict) and p.get("type") == "text":
            texts.append(str(p.get("text") or ""))
        elif isinstance(p, dict) and p.get("type") == "file":
            files.append(f"[attachment: {p.get('name') or p.get('identifier') or 'file'} (not in the conversation "
                         f"file)]")
    return texts, files


def _pieces(version: dict[str, Any], base: Message, results: dict[str, str]) -> list[Message]:
    if version.get("role") == "user":
        texts, files = _parts_text(version.get("content"))
        return [replace(base, content="\n".join(t for t in [*texts, *files] if t))]
    reply = Reply()
    model = dict_of(version, "senderInfo").get("senderName")
    tokens: tuple[int | None, int | None] = (None, None)
    calls: dict[str, ToolRound] = {}
    steps = list_of(version, "steps") or [{"content": version.get("content")}]
    for step in steps:
        if not isinstance(step, dict) or step.get("type") not in (None, "contentBlock"):
            continue
        thinking = dict_of(step, "style").get("type") == "thinking"
        for part in list_of(step, "content") or [{"type": "text", "text": text_of(step, "content")}]:
            _part(part, reply, calls, thinking)
        info = dict_of(step, "genInfo")
        model = info.get("identifier") or info.get("indexedModelIdentifier") or model
        stats = dict_of(info, "stats")
        if stats:
            tokens = (stats.get("promptTokensCount"), stats.get("predictedTokensCount"))
    for call_id, call in calls.items():
        if call.result is None and call_id in results:
            call.result = results[call_id]
    built = reply_messages(base, reply, model if isinstance(model, str) else None)
    built[-1] = replace(built[-1], input_tokens=tokens[0], output_tokens=tokens[1])
    return built


def _part(part: Any, reply: Reply, calls: dict[str, ToolRound], thinking: bool) -> None:
    if not isinstance(part, dict):
        return
    kind = part.get("type")
    if kind == "text":
        text = str(part.get("text") or "")
        if thinking:
            reply.thinking.append(text)
        else:
            split_markup(text, reply)
    elif kind == "toolCallRequest":  # flat in the files (name, parameters); nested under toolCallRequest in the SDK
        request = dict_of(part, "toolCallRequest") or part
        call_id = _call_id(part) or f"call_{len(calls)}"
        arguments = request.get("arguments", request.get("parameters"))
        calls[call_id] = ToolRound(call_id, str(request.get("name") or "tool"),
                                   json.dumps(arguments or {}, ensure_ascii=False))
        if isinstance(part.get("callId"), int):  # a result may name only the numeric callId
            calls[str(part["callId"])] = calls[call_id]
        reply.rounds.append(calls[call_id])
    elif kind == "toolCallResult":
        call = calls.get(_call_id(part)) or calls.get(str(part.get("callId")))
        if call is not None:
            call.result = _result_text(part.get("content"))
