"""Normalizes a message list so every provider accepts it: whole tool rounds, user/assistant alternation (questions in a
row stay as they are: each provider's shape merges them into one user turn, nothing is invented between them)."""

from __future__ import annotations

import operator
from collections.abc import Sequence

from domain.context.frozen_copy import copied
from domain.models import Message, MessageType

SYNTHETIC_PREFIX = "synthetic:"
LEADING_USER_TEXT = "[The earlier conversation is summarized above. Continue from there.]"
GAP_USER_TEXT = "[continue]"

_ASSISTANT = (MessageType.AI_RESPONSE, MessageType.TOOL_CALL)

# Enum members read once: `MessageType.X` costs a class lookup (~0.15 µs in 3.11) per message per scan
_USER, _RESULT, _REPLY, _CALL, _ERROR = (MessageType.USER, MessageType.TOOL_RESULT, MessageType.AI_RESPONSE,
                                       MessageType.TOOL_CALL, MessageType.ERROR)


def is_synthetic(message: Message) -> bool:
    """True for the placeholder messages the builder inserts (never stored)."""
    return message.id.startswith(SYNTHETIC_PREFIX)


def _synthetic(anchor: Message, kind: MessageType, text: str, tag: str) -> Message:
    return Message(
        id=f"{SYNTHETIC_PREFIX}{tag}:{anchor.id}",
        session_id=anchor.session_id,
        type=kind,
        content=text,
        seq=anchor.seq,
    )


def role_of(message: Message) -> str:
    """"user", "assistant" or "tool" as providers see the message."""
    if message.type is _USER:
        return "user"
    if message.type is _RESULT:
        return "tool"
    return "assistant"


def normalize(messages: Sequence[Message]) -> list[Message]:
    """Drops errors, orphan tool calls/results and empty replies; inserts a placeholder user message where assistant
    groups would follow each other or the list would start with one.

    The result starts with a user message; every assistant group (optional reply, then tool calls) follows a user
    message or tool results; every tool call is directly followed by its result; user messages in a row (or after
    tool results) are kept as they are, to be merged into one user turn. Stored text is never changed."""
    return _scan([m for m in messages if m.type is not _ERROR], [], 0)[0]


class Normalizer:
    """normalize() that resumes after the last user message of the list it normalized before, when the new list
    starts with the same message objects up to there (a turn's requests grow at the end): what comes before a user
    message never depends on what follows it."""

    def __init__(self) -> None:
        self._kept: tuple[list[Message], list[Message]] = ([], [])  # items up to a user message, their output

    def __call__(self, messages: Sequence[Message]) -> list[Message]:
        items = [m for m in messages if m.type is not _ERROR]
        before, done = self._kept  # one read: another thread may replace it meanwhile
        start = len(before)
        if start and len(items) >= start and all(map(operator.is_, items[:start], before)):
            out, resume = _scan(items, list(done), start)
        else:
            out, resume = _scan(items, [], 0)
        items_at, out_at = resume
        if items_at:
            self._kept = (items[:items_at], out[:out_at])
        return out


def _scan(items: list[Message], out: list[Message], i: int) -> tuple[list[Message], tuple[int, int]]:
    """Normalizes items[i:] onto `out` (made from items[:i], which end with a user message when i > 0); returns
    `out` and, for resuming, (the index after the last user message, the length of `out` right after it)."""
    last: str | None = "user" if i else None  # "user" | "assistant" | "tool"
    resume = (i, len(out))
    n = len(items)
    while i < n:
        m = items[i]
        if m.type is _USER:
            out.append(m)
            last = "user"
            i += 1
            resume = (i, len(out))
            continue
        if m.type is _RESULT:  # a result with no call right before it
            i += 1
            continue
        reply: Message | None = None
        if m.type is _REPLY:
            reply = m
            i += 1
        calls: list[Message] = []
        while i < n and items[i].type is _CALL:
            calls.append(items[i])
            i += 1
        results: list[Message] = []
        while i < n and items[i].type is _RESULT:
            results.append(items[i])
            i += 1
        calls, results = _pair(calls, results)
        if reply is not None and not reply.content.strip() and not calls:
            reply = None
        if reply is None and not calls:
            continue
        group = ([reply] if reply is not None else []) + calls
        if last is None:
            out.append(_synthetic(group[0], MessageType.USER, LEADING_USER_TEXT, "lead-user"))
        elif last == "assistant":
            out.append(_synthetic(group[0], MessageType.USER, GAP_USER_TEXT, "gap-user"))
        out.extend(group)
        out.extend(results)
        last = "tool" if calls else "assistant"
    return out, resume


def _pair(calls: list[Message], results: list[Message]) -> tuple[list[Message], list[Message]]:
    """Keeps calls that have a result and results (first per call, in call order) that answer a kept call."""
    first_result: dict[str, Message] = {}
    for r in results:
        if r.tool_call_id is not None and r.tool_call_id not in first_result:
            first_result[r.tool_call_id] = r
    kept_calls: list[Message] = []
    seen: set[str] = set()
    for c in calls:
        if c.tool_call_id is not None and c.tool_call_id in first_result and c.tool_call_id not in seen:
            kept_calls.append(c)
            seen.add(c.tool_call_id)
    return kept_calls, [first_result[c.tool_call_id] for c in kept_calls if c.tool_call_id is not None]


def turns(messages: Sequence[Message]) -> list[list[Message]]:
    """Splits a normalized list into turns, each starting with a user message."""
    out: list[list[Message]] = []
    for m in messages:
        if m.type is _USER or not out:
            out.append([m])
        else:
            out[-1].append(m)
    return out


def with_seq_order(messages: Sequence[Message]) -> list[Message]:
    """Messages sorted by seq, duplicates (same id) removed."""
    seen: set[str] = set()
    out = []
    for m in sorted(messages, key=lambda x: x.seq):
        if m.id not in seen:
            seen.add(m.id)
            out.append(m)
    return out


def retext(message: Message, text: str) -> Message:
    """A copy of a tool result carrying other text (where the provider reads it)."""
    if message.tool_output is not None:
        return copied(message, tool_output=text)
    return copied(message, content=text)
