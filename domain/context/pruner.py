"""Per-request pruning of old tool results (soft-trim, then hard-clear), in memory and cache-aware."""

from __future__ import annotations

from collections.abc import Sequence

from domain.models import Message, SessionId
from domain.settings import ContextSettings

HARD_CLEAR_TEXT = "[Tool result cleared — content was processed in earlier turns]"


class ToolResultPruner:
    """Shrinks old tool results in the request only; stored messages are never changed."""

    def __init__(self, settings: ContextSettings | None = None) -> None:
        self._settings = settings or ContextSettings()

    def prune(self, session_id: SessionId, messages: Sequence[Message]) -> list[Message]:
        """Returns the messages with old tool results trimmed or cleared (new objects; inputs untouched)."""
        raise NotImplementedError

    def preview(self, session_id: SessionId, messages: Sequence[Message]) -> list[Message]:
        """What prune would return now, without advancing the session's cache-aware pruning state."""
        raise NotImplementedError
