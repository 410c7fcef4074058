"""Where to split a session for compaction: keep the newest part, cut at the start of a user turn."""

from __future__ import annotations

from collections.abc import Sequence

from domain.context.estimator import TokenEstimator
from domain.models import Message


def find_cut_index(messages: Sequence[Message], keep_tokens: int, estimator: TokenEstimator) -> int | None:
    """Index of the first kept message: walking back until `keep_tokens` are kept, snapped to a user turn's start.

    None when nothing older than the kept part exists (no compaction possible)."""
    raise NotImplementedError
