"""Per-request pruning of old tool results (soft-trim, then hard-clear), cache-aware and derived from the messages
alone (the same in every process)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from enum import IntEnum

from domain.context.truncator import READ_TOOL_NAME
from domain.context.web_pruner import pruned_searches
from domain.models import Message, MessageId, MessageType, SessionId
from domain.settings import ContextSettings

HARD_CLEAR_TEXT = "[Tool result cleared — content was processed in earlier turns]"
KEPT_COPIES = 10_000  # shrunk copies kept for reuse (all dropped at once past this)


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

    Cache-aware: newly due trims and clears are applied only in a batch that frees at least
    `prune_min_clear_chars`, so the request prefix stays byte-identical between batches. The batches are derived from
    the messages alone (pruning_plan replays their tool results in order), so every process (a restarted app, the
    CLI's `sessions context`, a running GUI) computes the same next request; nothing is remembered between calls."""

    def __init__(self, settings: ContextSettings | None = None) -> None:
        self._settings = settings or ContextSettings()
        self._shrunk: dict[tuple[int, Action, int, int], tuple[Message, Message]] = {}  # see _apply

    def prune(
        self, session_id: SessionId, messages: Sequence[Message], settings: ContextSettings | None = None
    ) -> list[Message]:
        """Returns the messages with old tool results trimmed or cleared (new objects; inputs untouched)."""
        s = settings or self._settings
        return pruned_searches(self._apply(messages, pruning_plan(messages, s), s), s)

    def preview(
        self, session_id: SessionId, messages: Sequence[Message], settings: ContextSettings | None = None
    ) -> list[Message]:
        """What prune returns (the same: pruning holds no state)."""
        return self.prune(session_id, messages, settings)

    def forget(self, session_id: SessionId) -> None:
        """Nothing to forget: the plan is derived from the messages each time (kept for the planner's callers)."""

    def _apply(self, messages: Sequence[Message], plan: dict[MessageId, Action], s: ContextSettings) -> list[Message]:
        """The messages with the plan's results shrunk; a result shrunk the same way before (the same message object,
        action and trim sizes) is the same copy again (frozen: a turn prunes its request several times)."""
        out: list[Message] = []
        shrunk = self._shrunk
        for m in messages:
            act = plan.get(m.id, Action.KEEP)
            if act is Action.KEEP or m.type is not MessageType.TOOL_RESULT or m.has_image:
                out.append(m)
                continue
            key = (id(m), act, s.soft_trim_head, s.soft_trim_tail)
            kept = shrunk.get(key)
            if kept is None or kept[0] is not m:
                if len(shrunk) >= KEPT_COPIES:
                    shrunk.clear()
                kept = shrunk[key] = (m, _with_text(m, _render(result_text(m), act, s, m.id)))
            out.append(kept[1])
        return out


def pruning_plan(messages: Sequence[Message], s: ContextSettings) -> dict[MessageId, Action]:
    """The actions the request applies: the tool results replayed in order, as if a request followed each one,
    newly due actions (desired_actions at that point) applied in a batch once they free `prune_min_clear_chars`.

    A result's due action changes only when its age (in tool results) reaches keep_last_tool_results or
    hard_clear_after, so the replay touches each result at most twice: linear in the number of results."""
    if not s.pruning_enabled:
        return {}
    results = [m for m in messages if m.type is MessageType.TOOL_RESULT]
    plan: dict[int, Action] = {}
    due: dict[int, Action] = {}
    sizes: dict[tuple[int, Action], int] = {}

    def size(i: int, act: Action) -> int:
        key = (i, act)
        if key not in sizes:
            sizes[key] = _size(result_text(results[i]), act, s, results[i].id)
        return sizes[key]

    def gain(i: int, act: Action) -> int:
        current = plan.get(i, Action.KEEP)
        return size(i, current) - size(i, act) if act > current else 0

    pending: set[int] = set()  # results whose due action is ahead of the applied one
    freed = 0  # characters the pending actions would free
    ages = sorted({s.keep_last_tool_results, s.hard_clear_after})
    for newest in range(len(results)):
        for age in ages:
            i = newest - age
            if i < 0:
                continue
            act = _due(results[i], age, s)
            if act is due.get(i, Action.KEEP):
                continue
            freed += gain(i, act) - gain(i, due.get(i, Action.KEEP))
            due[i] = act
            if act > plan.get(i, Action.KEEP):
                pending.add(i)
        if freed >= s.prune_min_clear_chars:
            for i in pending:
                plan[i] = due[i]
            pending.clear()
            freed = 0
    return {results[i].id: act for i, act in plan.items() if act is not Action.KEEP}


def _due(m: Message, age: int, s: ContextSettings) -> Action:
    """The action a tool result of this age gets with no regard to the cache."""
    if age < s.keep_last_tool_results or m.has_image:
        return Action.KEEP
    text = result_text(m)
    if age >= s.hard_clear_after and len(text) > len(clear_text(m.id)):
        return Action.CLEAR
    if len(text) > s.soft_trim_chars and len(text) > _trimmed_len(s, len(text), m.id):
        return Action.TRIM
    return Action.KEEP


def desired_actions(messages: Sequence[Message], s: ContextSettings) -> dict[MessageId, Action]:
    """The action each tool result would get with no regard to the cache (age counted in tool-result messages)."""
    results = [m for m in messages if m.type is MessageType.TOOL_RESULT]
    due = {m.id: _due(m, len(results) - 1 - i, s) for i, m in enumerate(results)}
    return {mid: act for mid, act in due.items() if act is not Action.KEEP}


def _trimmed_len(s: ContextSettings, total: int, message_id: str) -> int:
    return s.soft_trim_head + s.soft_trim_tail + len(trim_marker(s.soft_trim_head, s.soft_trim_tail, total, message_id))


def _size(text: str, act: Action, s: ContextSettings, message_id: str) -> int:
    """len(_render(text, act, s, message_id)), without rendering."""
    if act is Action.CLEAR:
        return len(clear_text(message_id))
    if act is Action.TRIM:
        trimmed = _trimmed_len(s, len(text), message_id)
        if len(text) > trimmed:
            return trimmed
    return len(text)


def _render(text: str, act: Action, s: ContextSettings, message_id: str) -> str:
    if act is Action.CLEAR:
        return clear_text(message_id)
    if act is Action.TRIM and len(text) > _trimmed_len(s, len(text), message_id):
        head, tail = text[: s.soft_trim_head], text[len(text) - s.soft_trim_tail :] if s.soft_trim_tail else ""
        return head + trim_marker(s.soft_trim_head, s.soft_trim_tail, len(text), message_id) + tail
    return text
