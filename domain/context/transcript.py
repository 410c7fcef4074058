"""Renders messages as a plain-text transcript for the summarizer."""

from __future__ import annotations

from collections.abc import Sequence

from domain.models import Message


def render_transcript(messages: Sequence[Message], max_tool_chars: int = 2_000) -> str:
    """One block per message ([User], [Assistant], [Tool call name], [Tool result]); long tool output clipped."""
    raise NotImplementedError
