"""to_turns resumed after the prefix it walked before: a turn's requests share every message up to the last user
message, so only the messages after it are walked again (the result is to_turns' own, which the tests compare)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import is_

from data.providers.conversation import (
    Turn,
    TurnWalk,
    as_text,
    collect_results,
    finish_turns,
    merge_into,
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
        if not walked.starts(messages) or _answers(messages[len(walked.prefix):], walked.unanswered):
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
