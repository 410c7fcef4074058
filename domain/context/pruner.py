"""Per-request pruning of old tool results (soft-trim, then hard-clear), cache-aware and derived from the messages
alone (the same in every process)."""

from __future__ import annotations

from collections.abc import Sequence
from operator import is_

from domain.context.frozen_copy import copied
from domain.context.prune_replay import Action, PruneReplay
from domain.context.truncator import READ_TOOL_NAME
from domain.context.web_pruner import pruned_searches
from domain.models import Message, MessageId, MessageType, SessionId
from domain.settings import ContextSettings

HARD_CLEAR_TEXT = "[Tool result cleared — content was processed in earlier turns]"
KEPT_COPIES = 10_000  # shrunk copies kept for reuse (all dropped at once past this)
# Enum members read once: `MessageType.X` costs a class lookup (~0.15 µs in 3.11) per message per scan
_RESULT, _KEEP = MessageType.TOOL_RESULT, Action.KEEP


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
        return copied(message, tool_output=text)
    return copied(message, content=text)


class ToolResultPruner:
    """Shrinks old tool results in the request only; stored messages are never changed.

    Cache-aware: newly due trims and clears are applied only in a batch that frees at least
    `prune_min_clear_chars`, so the request prefix stays byte-identical between batches. The batches are derived from
    the messages alone (pruning_plan replays their tool results in order), so every process (a restarted app, the
    CLI's `sessions context`, a running GUI) computes the same next request; nothing is remembered between calls."""

    def __init__(self, settings: ContextSettings | None = None) -> None:
        self._settings = settings or ContextSettings()
        self._shrunk: dict[tuple[int, Action, int, int], tuple[Message, Message]] = {}  # see _apply
        self._replay: PruneReplay | None = None  # the latest plan's replay, carried on by the next (see _plan)
        self._applied: tuple[tuple[Message, ...], dict[MessageId, Action], tuple[int, int], tuple[Message, ...]] | None
        self._applied = None  # the latest _apply: its messages, plan, trim sizes and result (resumed by the next)

    def prune(
        self, session_id: SessionId, messages: Sequence[Message], settings: ContextSettings | None = None
    ) -> list[Message]:
        """Returns the messages with old tool results trimmed or cleared (new objects; inputs untouched)."""
        s = settings or self._settings
        return pruned_searches(self._apply(messages, self._plan(messages, s), s), s)

    def preview(
        self, session_id: SessionId, messages: Sequence[Message], settings: ContextSettings | None = None
    ) -> list[Message]:
        """What prune returns (the same: pruning holds no state)."""
        return self.prune(session_id, messages, settings)

    def forget(self, session_id: SessionId) -> None:
        """Nothing to forget: the plan is derived from the messages each time (kept for the planner's callers)."""

    def _plan(self, messages: Sequence[Message], s: ContextSettings) -> dict[MessageId, Action]:
        """pruning_plan(messages, s), carrying on the latest replay when these tool results begin with its own (the
        same message objects): a conversation's results only grow, and a turn plans the same ones several times."""
        if not s.pruning_enabled:
            return {}
        results = [m for m in messages if m.type is _RESULT]
        last = self._replay
        if last is None or not last.continues_into(results, s):
            last = PruneReplay(s)
        replay = last.carried_on(results, s, _size_of, _due)
        self._replay = replay  # one assignment: a thread sharing the pruner sees the old replay or the new one
        return replay.ids

    def _apply(self, messages: Sequence[Message], plan: dict[MessageId, Action], s: ContextSettings) -> list[Message]:
        """The messages with the plan's results shrunk; a result shrunk the same way before (the same message object,
        action and trim sizes) is the same copy again (frozen: a turn prunes its request several times). Messages
        that begin with the last call's own (the same objects, under the same plan object) are resumed after them."""
        if not plan:
            return list(messages)
        trim = (s.soft_trim_head, s.soft_trim_tail)
        start, out = 0, []
        last = self._applied
        if last is not None and last[1] is plan and last[2] == trim and len(last[0]) <= len(messages) and all(
                map(is_, last[0], messages)):  # the last request's messages and plan again, maybe more messages
            start, out = len(last[0]), list(last[3])
        shrunk = self._shrunk
        for m in messages[start:]:
            if m.type is not _RESULT or m.has_image:
                out.append(m)
                continue
            act = plan.get(m.id, _KEEP)
            if act is _KEEP:
                out.append(m)
                continue
            key = (id(m), act, s.soft_trim_head, s.soft_trim_tail)
            kept = shrunk.get(key)
            if kept is None or kept[0] is not m:
                if len(shrunk) >= KEPT_COPIES:
                    shrunk.clear()
                kept = shrunk[key] = (m, _with_text(m, _render(result_text(m), act, s, m.id)))
            out.append(kept[1])
        self._applied = (tuple(messages), plan, trim, tuple(out))  # one assignment (a thread sharing the pruner)
        return out


def pruning_plan(messages: Sequence[Message], s: ContextSettings) -> dict[MessageId, Action]:
    """The actions the request applies: the tool results replayed in order, as if a request followed each one,
    newly due actions (desired_actions at that point) applied in a batch once they free `prune_min_clear_chars`.

    A result's due action changes only when its age (in tool results) reaches keep_last_tool_results or
    hard_clear_after, so the replay touches each result at most twice: linear in the number of results."""
    if not s.pruning_enabled:
        return {}
    results = [m for m in messages if m.type is _RESULT]
    return dict(PruneReplay(s).carried_on(results, s, _size_of, _due).ids)


def _size_of(m: Message, act: Action, s: ContextSettings) -> int:
    return _size(result_text(m), act, s, m.id)


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
    results = [m for m in messages if m.type is _RESULT]
    due = {m.id: _due(m, len(results) - 1 - i, s) for i, m in enumerate(results)}
    return {mid: act for mid, act in due.items() if act is not _KEEP}


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
