"""to_turns resumed after the prefix it walked before: a turn's requests share every message up to the last user
message, so only the messages after it are walked again, and an older tool result the pruner changed in that prefix
only has its own block made again (the result is to_turns' own, which the tests compare)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import compress
from operator import is_, is_not

from data.providers.conversation import (
    CallBlock,
    ResultBlock,
    Turn,
    TurnWalk,
    as_text,
    collect_results,
    finish_turns,
    merge_into,
    result_block,
    to_turns,
)
from domain.models import Message, MessageType

KEPT_LISTS = 16  # conversations remembered (all dropped at once past this)


@dataclass(frozen=True)
class _Walked:
    """The walk's state after `prefix` (which ends just before a user message, so no assistant turn is open)."""

    prefix: tuple[Message, ...] = ()
    merged: tuple[Turn, ...] = ()  # the prefix's turns, merged (as text without tool blocks)
    results: dict[str, Message] = field(default_factory=dict)  # results found in the prefix (never changed)
    seen_ids: frozenset[str] = frozenset()
    answered: frozenset[str] = frozenset()

    @property
    def unanswered(self) -> frozenset[str]:
        """Calls of the prefix closed without a result: a later result for one changes the prefix's turns."""
        return self.seen_ids - self.answered

    def starts(self, messages: Sequence[Message]) -> bool:
        """True when `messages` begins with this prefix (the same message objects)."""
        prefix = self.prefix
        return len(messages) >= len(prefix) and all(map(is_, prefix, messages))  # map: no Python frame per message


_EMPTY = _Walked()


class TurnMemo:
    """to_turns with the walk kept per conversation (the list's first message) at its last user message."""

    def __init__(self) -> None:
        self._walked: dict[tuple[str, bool, str | None], _Walked] = {}

    def turns(self, messages: Sequence[Message], *, user_first: bool = True, tool_blocks: bool = True,
              web_provider: str | None = None) -> list[Turn]:
        """to_turns(messages, ...), walking only the messages after the prefix remembered for this conversation."""
        if not messages:
            return to_turns(messages, user_first=user_first, tool_blocks=tool_blocks, web_provider=web_provider)
        key = (messages[0].id, tool_blocks, web_provider)
        walked = self._walked.get(key, _EMPTY)
        if not walked.starts(messages):
            walked = _patched(walked, messages, tool_blocks) or _EMPTY
        if _answers(messages[len(walked.prefix):], walked.unanswered):
            walked = _EMPTY
        last_user = next((i for i in range(len(messages) - 1, len(walked.prefix) - 1, -1)
                          if messages[i].type is MessageType.USER), None)
        if last_user is not None and last_user > len(walked.prefix):
            walked = _advance(walked, messages[:last_user], tool_blocks, web_provider)
            if _answers(messages[last_user:], walked.unanswered):  # a call of it answered after it: walk it all
                return to_turns(messages, user_first=user_first, tool_blocks=tool_blocks, web_provider=web_provider)
            if len(self._walked) >= KEPT_LISTS and key not in self._walked:
                self._walked.clear()
            self._walked[key] = walked
        _, walk = _walk_on(walked, messages[len(walked.prefix):], web_provider)
        return finish_turns(merge_into(list(walked.merged), _shown(walk.turns, tool_blocks)), user_first)


def _patched(walked: _Walked, messages: Sequence[Message], tool_blocks: bool) -> _Walked | None:
    """`walked` for `messages` when its prefix differs from theirs only in tool results that came as other objects
    with the same id and call (the pruner trims or clears an older result): the blocks of those results made again,
    the other turns kept; None otherwise. A result's content changes nothing else of the walk, which reads results
    only when it closes their call's turn."""
    prefix, results = walked.prefix, walked.results
    if not prefix or not tool_blocks or len(messages) < len(prefix):
        return None
    changed: dict[str, Message] = {}
    for i in compress(range(len(prefix)), map(is_not, prefix, messages)):
        old, new = prefix[i], messages[i]
        if (old.type is not MessageType.TOOL_RESULT or new.type is not MessageType.TOOL_RESULT or old.id != new.id
                or old.tool_call_id != new.tool_call_id):
            return None
        if old.tool_call_id and results.get(old.tool_call_id) is old:  # the result its call's turn was closed with
            changed[old.tool_call_id] = new
    results = {**results, **changed}
    merged = tuple(_with_results(turn, changed, results) for turn in walked.merged) if changed else walked.merged
    return _Walked(tuple(messages[:len(prefix)]), merged, results, walked.seen_ids, walked.answered)


def _with_results(turn: Turn, changed: dict[str, Message], results: dict[str, Message]) -> Turn:
    """The turn with its result blocks for the `changed` calls made again from `results`."""
    if turn.role != "user" or not any(isinstance(b, ResultBlock) and b.id in changed for b in turn.blocks):
        return turn
    return Turn(turn.role, tuple(result_block(CallBlock(b.id, b.name, {}), results)
                                 if isinstance(b, ResultBlock) and b.id in changed else b for b in turn.blocks),
                turn.reasoning)


def _answers(messages: Sequence[Message], unanswered: frozenset[str]) -> bool:
    return bool(unanswered) and any(m.type is MessageType.TOOL_RESULT and m.tool_call_id in unanswered
                                    for m in messages)


def _walk_on(walked: _Walked, segment: Sequence[Message], web_provider: str | None
             ) -> tuple[dict[str, Message], TurnWalk]:
    """The walk resumed after `walked` over `segment`, its calls closed with the results known up to its end."""
    results = collect_results(segment, dict(walked.results))
    walk = TurnWalk(results, web_provider)
    walk.seen_ids, walk.answered = set(walked.seen_ids), set(walked.answered)
    for message in segment:
        walk.feed(message)
    walk.close_assistant()
    return results, walk


def _shown(turns: list[Turn], tool_blocks: bool) -> list[Turn]:
    return turns if tool_blocks else [as_text(turn) for turn in turns]


def _advance(walked: _Walked, prefix: Sequence[Message], tool_blocks: bool, web_provider: str | None) -> _Walked:
    """The walk's state after `prefix` (which starts with walked.prefix and ends before a user message), its calls
    closed with the results found in it alone."""
    results, walk = _walk_on(walked, prefix[len(walked.prefix):], web_provider)
    merged = tuple(merge_into(list(walked.merged), _shown(walk.turns, tool_blocks)))
    return _Walked(tuple(prefix), merged, results, frozenset(walk.seen_ids), frozenset(walk.answered))
