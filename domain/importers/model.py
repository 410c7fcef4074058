"""What an importer reads out of an export: conversations as trees of messages, validated before anything is stored."""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from domain.errors import InvalidInput
from domain.models import CompactionRecord, Message


class MalformedExport(InvalidInput):
    """The file is not a valid export of the kind named; `where` says where the problem is."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"Cannot import: {problem} at {where}. Nothing was imported.")
        self.where = where


@dataclass(frozen=True)
class ImportedConversation:
    """One conversation to store: its session id (derived from the source's id, so a second import finds it), title,
    times, messages in an order where every parent comes before its children (parent_id set, ids final), the leaf of
    the path the source had open, and any checkpoints (Palimpsest's own export)."""

    session_id: str
    title: str
    created_at: datetime
    updated_at: datetime
    messages: tuple[Message, ...]
    leaf_id: str | None
    checkpoints: tuple[CompactionRecord, ...] = ()
    summary: str | None = None
    agent_id: str | None = None
    provider_id: str | None = None
    model_id: str | None = None
    totals: tuple[int, int, int] = (0, 0, 0)
    reasoning: str | None = None  # the session's reasoning level (Palimpsest's own export)
    system_prompt: str | None = None  # the session's own system prompt (Palimpsest's own export, ChatGPT's
    # custom instructions)
    files: tuple[FileRef, ...] = ()  # files the source's messages had, looked for in the export's archive


@dataclass(frozen=True)
class FileRef:
    """A file a user message had in the source: found in the export's archive it becomes an attachment of the
    message and its placeholder `lines` leave the text; not found, the lines stay."""

    message_id: str
    file_id: str
    name: str
    lines: tuple[str, ...]
    data: bytes | None = None  # the file itself when the export embeds it (a data: URL), else looked up by file_id


Progress = Callable[[int, int | None], None]  # (done, total: None when the export is read as it is stored)
MAX_NESTING = 500  # the deepest JSON an export may nest (the exports nest about 10 levels)


def load_json(text: str) -> Any:
    """The decoded JSON; MalformedExport with the line and column of a syntax error."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise MalformedExport(f"line {err.lineno}, column {err.colno}", f"invalid JSON ({err.msg})") from None
    except RecursionError:
        raise too_deep("the file") from None


def too_deep(where: str) -> MalformedExport:
    """The refusal of JSON nested deeper than an export can be."""
    return MalformedExport(where, f"JSON nested deeper than {MAX_NESTING} levels (an export nests about 10)")


def depth_checked(value: Any, where: str) -> Any:
    """`value` when its lists and objects nest at most MAX_NESTING deep, else MalformedExport (walked without
    recursion, so any depth is measured)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            raise too_deep(where)
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node if isinstance(v, dict | list))
    return value


def when(value: Any, where: str, default: datetime | None = None) -> datetime:
    """A timestamp from epoch seconds or an ISO 8601 string (None: `default`, else now)."""
    if value is None:
        return default or datetime.now(UTC)
    if isinstance(value, bool):
        raise MalformedExport(where, "a time that is neither a number nor a date")
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(float(value), UTC)
        except (OverflowError, OSError, ValueError):
            raise MalformedExport(where, f"a time out of range ({value})") from None
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise MalformedExport(where, f"a date that cannot be read ({value!r})") from None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    raise MalformedExport(where, "a time that is neither a number nor a date")


def expect(value: Any, kind: type | tuple[type, ...], where: str, what: str) -> Any:
    """`value` when it is of `kind`, else MalformedExport naming what was expected."""
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise MalformedExport(where, f"expected {what}, found {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", type(None): "null", bool: "true/false"}.get(
        type(value), "a number")


def ordered(
    messages: Sequence[Message], where: str, key: Callable[[Message], Any] | None = None
) -> tuple[Message, ...]:
    """The messages with every parent before its children, otherwise in `key` order (by time by default); a
    parent that is not among them makes the message a root. MalformedExport when two share an id or parents form a
    cycle."""
    sort_key = key or _time_key
    ids = {m.id for m in messages}
    if len(ids) != len(messages):
        seen: set[str] = set()
        twice = next(m.id for m in messages if m.id in seen or seen.add(m.id))  # type: ignore[func-returns-value]
        raise MalformedExport(where, f"two messages with the same id ({twice!r})")
    children: dict[str | None, list[Message]] = {}
    for m in messages:
        children.setdefault(m.parent_id if m.parent_id in ids else None, []).append(m)
    ready = [(sort_key(m), n, m) for n, m in enumerate(children.get(None, []))]
    heapq.heapify(ready)
    out: list[Message] = []
    count = len(ready)
    while ready:
        _key, _n, node = heapq.heappop(ready)
        out.append(node if node.parent_id in ids or node.parent_id is None else _rooted(node))
        for child in children.get(node.id, []):
            count += 1
            heapq.heappush(ready, (sort_key(child), count, child))
    if len(out) != len(messages):
        raise MalformedExport(where, "messages whose parents form a cycle")
    return tuple(out)


def _time_key(m: Message) -> tuple[float, str]:
    return (m.created_at.timestamp() if m.created_at else 0.0, m.id)


def _rooted(m: Message) -> Message:
    return replace(m, parent_id=None)
