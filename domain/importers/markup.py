"""Pieces other clients' exports share: reasoning written into the reply's text (`<think>` tags, Open WebUI's
`<details type="reasoning">`), tool calls written as `<details type="tool_calls">`, files embedded as data: URLs,
epoch times in seconds or milliseconds, and replies built as a chain of stored messages."""

from __future__ import annotations

import base64
import binascii
import hashlib
import html
import json
import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from domain.importers.model import when
from domain.models import Message, MessageType, ToolStatus

_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.S)
_DETAILS = re.compile(r'<details\s+type="(?P<kind>[a-z_]+)"(?P<attrs>[^>]*)>(?P<body>.*?)</details>', re.S)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_SUMMARY = re.compile(r"<summary>.*?</summary>", re.S)
_DATA_URL = re.compile(r"data:(?P<type>[\w/+.-]+)?(?:;[\w=.-]+)*;base64,(?P<data>.*)", re.S)


def text_of(item: dict[str, Any], key: str, default: str = "") -> str:
    """`item[key]` when it is a string, else `default`."""
    value = item.get(key)
    return value if isinstance(value, str) else default


def dict_of(item: Any, key: str) -> dict[str, Any]:
    """`item[key]` when it is an object, else an empty one (also when `item` is not an object)."""
    value = item.get(key) if isinstance(item, dict) else None
    return value if isinstance(value, dict) else {}


def list_of(item: Any, key: str) -> list[Any]:
    """`item[key]` when it is a list, else an empty one."""
    value = item.get(key) if isinstance(item, dict) else None
    return value if isinstance(value, list) else []


def epoch(value: Any, where: str, default: datetime | None = None) -> datetime:
    """A time from epoch seconds, epoch milliseconds (a number past the year 33658 in seconds) or an ISO date."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 1e12:
        value = value / 1000
    return when(value, where, default)


def stable_id(*parts: Any) -> str:
    """A short id derived from the parts (for exports whose conversations carry none): the same file gives the same
    id, so a second import finds what the first stored."""
    return hashlib.sha1(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:20]


@dataclass
class ToolRound:
    """A tool call written into a reply's text, with its result when there is one."""

    call_id: str
    name: str
    arguments: str
    result: str | None = None
    failed: bool = False


@dataclass
class Reply:
    """A reply's parts in order: its visible text, its reasoning, and the tool rounds it made."""

    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    rounds: list[ToolRound] = field(default_factory=list)


def split_markup(text: str, reply: Reply | None = None) -> Reply:
    """A reply's text with `<think>` blocks and Open WebUI's `<details>` blocks taken out: reasoning becomes thinking,
    tool calls become rounds, anything else keeps its inner text."""
    out = reply or Reply()
    def think(m: re.Match[str]) -> str:
        out.thinking.append(m.group(1).strip())
        return ""

    rest = _THINK.sub(think, text)

    def detail(m: re.Match[str]) -> str:
        attrs = {k: html.unescape(v) for k, v in _ATTR.findall(m.group("attrs"))}
        body = html.unescape(_SUMMARY.sub("", m.group("body"))).strip()
        if m.group("kind") == "reasoning":
            out.thinking.append("\n".join(line.removeprefix(">").removeprefix(" ") for line in body.splitlines()))
            return ""
        if m.group("kind") == "tool_calls":
            result = attrs.get("result", body)
            out.rounds.append(ToolRound(attrs.get("id") or f"call_{len(out.rounds)}", attrs.get("name") or "tool",
                                        _json_text(attrs.get("arguments", "{}")), _json_text(result) if result else
                                        None))
            return ""
        return body

    rest = _DETAILS.sub(detail, rest).strip()
    if rest:
        out.text.append(rest)
    return out


def _json_text(value: str) -> str:
    """An attribute that holds JSON text (Open WebUI writes arguments and results JSON-encoded): decoded once when it
    is a JSON string, else as it is."""
    try:
        decoded = json.loads(value)
    except ValueError:
        return value
    return decoded if isinstance(decoded, str) else json.dumps(decoded, ensure_ascii=False)


def data_url(url: Any) -> tuple[str, bytes] | None:
    """The media type and bytes of a base64 data: URL, or None."""
    match = _DATA_URL.match(url) if isinstance(url, str) else None
    if match is None:
        return None
    try:
        return match.group("type") or "application/octet-stream", base64.b64decode(match.group("data"), validate=False)
    except (binascii.Error, ValueError):
        return None


def reply_messages(base: Message, reply: Reply, model: str | None) -> list[Message]:
    """A reply as stored messages, each under the one before: its tool calls and their results in order, then its
    text with its reasoning (as thinking, never sent); an empty reply is still one message."""
    out: list[Message] = []

    def add(message: Message) -> None:
        out.append(replace(message, id=base.id if not out else f"{base.id}#{len(out)}",
                           parent_id=out[-1].id if out else base.parent_id))

    for r in reply.rounds:
        add(replace(base, type=MessageType.TOOL_CALL, tool_call_id=r.call_id, tool_name=r.name,
                    tool_input=r.arguments or "{}", model_id=model))
        if r.result is not None:
            add(replace(base, type=MessageType.TOOL_RESULT, tool_call_id=r.call_id, tool_name=r.name,
                        tool_output=r.result, tool_status=ToolStatus.ERROR if r.failed else ToolStatus.SUCCESS))
    add(replace(base, type=MessageType.AI_RESPONSE, content="\n\n".join(t for t in reply.text if t), model_id=model,
                thinking_content="\n\n".join(t for t in reply.thinking if t) or None))
    return out


def tail_ids(pieces: dict[str, list[Message]]) -> dict[str, str]:
    """Each source message's id -> the id of the last stored message it became (its children hang there)."""
    return {key: built[-1].id for key, built in pieces.items() if built}
