"""What both stores refuse before writing a session's usage or compaction (data.db.sessions, data.lite.sessions)."""

from __future__ import annotations

from domain.errors import InvalidInput
from domain.models import Usage


def check_usage(usage: Usage) -> None:
    """InvalidInput for a negative token count."""
    if min(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) < 0:
        raise InvalidInput("Token usage cannot be negative.")


def check_compaction(summary: str, boundary: int) -> None:
    """InvalidInput for a blank summary or a boundary before the first message."""
    if not summary.strip():
        raise InvalidInput("A compaction summary cannot be blank.")
    if boundary < 0:
        raise InvalidInput(f"A compaction boundary must be a message seq (>= 0), not {boundary}.")
