"""Per-request pruning of old tool results (soft-trim, then hard-clear), in memory and cache-aware."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from enum import IntEnum

from domain.context.truncator import READ_TOOL_NAME
from domain.models import Message, MessageId, MessageType, SessionId
from domain.settings import ContextSettings

HARD_CLEAR_TEXT = "[Tool result cleared — content was processed in earlier turns]"


class Action(IntEnum):
    """How much of one tool result a request carries; only ever grows for a given message."""

    KEEP = 0
    TRIM = 1
    CLEAR = 2


def trim_marker(head: int, tail: int, total: int, message_id: str) -> str:
    """The line between a soft-trimmed result's head and tail."""
    return (
        f"\n\n--- trimmed (kept {head} head + {tail} tail of {total} chars) ---\n"
        f"[call {READ_TOOL_NAME} with message_id=\"{message_id}\" to read the trimmed part]\n\n"
    )


def clear_text(message_id: str) -> str:
    """What a hard-cleared result is replaced with."""
    return f"{HARD_CLEAR_TEXT}\n[call {READ_TOOL_NAME} with message_id=\"{message_id}\" if you need it again]"


def result_text(message: Message) -> str:
    """The text a tool result carries to the provider: tool_output when set, else content."""
    return message.tool_output if message.tool_output is not None else message.content


def _with_text(message: Message, text: str) -> Message:
    if message.tool_output is not None:
        return replace(message, tool_output=text)
    return replace(message, content=text)


class ToolResultPruner:
    """Shrinks old tool results in the request only; stored messages are never changed.

    Cache-aware: per session it remembers the actions already applied and applies newly due ones only in a batch
    that frees at least `prune_min_clear_chars`, so the request prefix stays byte-identical between batches.
    Keep one instance per app (the composition root's), since this memory is what makes the steps stable."""

    def __init__(self, settings: ContextSettings | None = None) -> None:
        self._settings = settings or ContextSettings()
        self._applied: dict[SessionId, dict[MessageId, Action]] = {}

    def prune(
        self, session_id: SessionId, messages: Sequence[Message], settings: ContextSettings | None = None
    ) -> list[Message]:
        """Returns the messages with old tool results trimmed or cleared (new objects; inputs untouched)."""
        plan = self._plan(session_id, messages, settings or self._settings)
        self._applied[session_id] = plan
        return self._apply(messages, plan, settings or self._settings)

    def preview(
        self, session_id: SessionId, messages: Sequence[Message], settings: ContextSettings | None = None
    ) -> list[Message]:
        """What prune would return now, without advancing the session's cache-aware pruning state."""
        s = settings or self._settings
        return self._apply(messages, self._plan(session_id, messages, s), s)

    def forget(self, session_id: SessionId) -> None:
        """Drops the remembered steps of a session (after compaction or a reset the prefix changes anyway)."""
        self._applied.pop(session_id, None)

    def _plan(self, session_id: SessionId, messages: Sequence[Message], s: ContextSettings) -> dict[MessageId, Action]:
        applied = self._applied.get(session_id, {})
        if not s.pruning_enabled:
            return {}
        present = {m.id for m in messages}
        plan = {mid: act for mid, act in applied.items() if mid in present}
        desired = desired_actions(messages, s)
        gain = 0
        by_id = {m.id: m for m in messages}
        for mid, act in desired.items():
            current = plan.get(mid, Action.KEEP)
            if act > current:
                text = result_text(by_id[mid])
                gain += _size(text, current, s, mid) - _size(text, act, s, mid)
        if gain >= s.prune_min_clear_chars:
            for mid, act in desired.items():
                plan[mid] = max(act, plan.get(mid, Action.KEEP))
        return plan

    @staticmethod
    def _apply(messages: Sequence[Message], plan: dict[MessageId, Action], s: ContextSettings) -> list[Message]:
        out: list[Message] = []
        for m in messages:
            act = plan.get(m.id, Action.KEEP)
            if act is Action.KEEP or m.type is not MessageType.TOOL_RESULT or m.has_image:
                out.append(m)
                continue
            out.append(_with_text(m, _render(result_text(m), act, s, m.id)))
        return out


def desired_actions(messages: Sequence[Message], s: ContextSettings) -> dict[MessageId, Action]:
    """The action each tool result would get with no regard to the cache (age counted in tool-result messages)."""
    actions: dict[MessageId, Action] = {}
    newer = 0
    for m in reversed(messages):
        if m.type is not MessageType.TOOL_RESULT:
            continue
        age, newer = newer, newer + 1
        if age < s.keep_last_tool_results or m.has_image:
            continue
        text = result_text(m)
        if age >= s.hard_clear_after and len(text) > len(clear_text(m.id)):
            actions[m.id] = Action.CLEAR
        elif len(text) > s.soft_trim_chars and len(text) > _trimmed_len(s, len(text), m.id):
            actions[m.id] = Action.TRIM
    return actions


def _trimmed_len(s: ContextSettings, total: int, message_id: str) -> int:
    return s.soft_trim_head + s.soft_trim_tail + len(trim_marker(s.soft_trim_head, s.soft_trim_tail, total, message_id))


def _size(text: str, act: Action, s: ContextSettings, message_id: str) -> int:
    return len(_render(text, act, s, message_id))


def _render(text: str, act: Action, s: ContextSettings, message_id: str) -> str:
    if act is Action.CLEAR:
        return clear_text(message_id)
    if act is Action.TRIM and len(text) > _trimmed_len(s, len(text), message_id):
        head, tail = text[: s.soft_trim_head], text[len(text) - s.soft_trim_tail :] if s.soft_trim_tail else ""
        return head + trim_marker(s.soft_trim_head, s.soft_trim_tail, len(text), message_id) + tail
    return text
