"""Where to split a session for compaction: keep the newest part, cut at the start of a user turn."""

from __future__ import annotations

from collections.abc import Sequence

from domain.context.alternation import is_synthetic
from domain.context.estimator import TokenEstimator
from domain.models import Message, MessageType


def find_cut_index(
    messages: Sequence[Message], keep_tokens: int, estimator: TokenEstimator, max_keep_tokens: int | None = None
) -> int | None:
    """Index of the first kept message: walking back until `keep_tokens` are kept, snapped to a user turn's start.

    `messages` is a normalized list (see alternation.normalize). The cut snaps forward to the next stored user
    message. When none follows, the newest turn is kept whole if it fits in `max_keep_tokens` (so the user's
    latest request and its tool results are not summarized away); otherwise (one long tool-using turn) the cut
    goes to the next assistant group that follows complete tool results; failing that, back to the start of the
    newest turn. It never falls inside a tool-call/result pair. None when nothing older would remain."""
    if not messages:
        return None
    accumulated = 0
    start = 0
    for i in range(len(messages) - 1, -1, -1):
        accumulated += estimator.estimate_message(messages[i])
        if accumulated >= keep_tokens:
            start = i
            break
    else:
        return None
    cut = _next_user(messages, start)
    if cut is None and max_keep_tokens is not None:
        whole = _previous_user(messages, start)
        if whole is not None and estimator.estimate_messages(messages[whole:]) <= max_keep_tokens:
            cut = whole
    if cut is None:
        cut = _next_group_start(messages, start)
    if cut is None:  # the newest turn alone is bigger than the kept part: keep it whole, compact what is older
        cut = _previous_user(messages, start)
    if cut is None or not any(not is_synthetic(m) for m in messages[:cut]):
        return None
    return cut


def _next_user(messages: Sequence[Message], start: int) -> int | None:
    for j in range(start, len(messages)):
        if messages[j].type is MessageType.USER and not is_synthetic(messages[j]):
            return j
    return None


def _previous_user(messages: Sequence[Message], start: int) -> int | None:
    for j in range(min(start, len(messages) - 1), 0, -1):
        if messages[j].type is MessageType.USER and not is_synthetic(messages[j]):
            return j
    return None


def _next_group_start(messages: Sequence[Message], start: int) -> int | None:
    """The next assistant reply or first tool call that directly follows tool results."""
    for j in range(max(start, 1), len(messages)):
        m = messages[j]
        follows_results = messages[j - 1].type is MessageType.TOOL_RESULT
        if m.type in (MessageType.AI_RESPONSE, MessageType.TOOL_CALL) and not is_synthetic(m) and follows_results:
            return j
    return None
