"""Search sessions: full-text search over messages, titles and summaries."""

from __future__ import annotations

from collections.abc import Sequence

from domain.errors import InvalidInput
from domain.ports import SessionRepository, SessionSearchHit

MAX_QUERY_CHARS = 500


class SearchSessionsUseCase:
    """Finds sessions whose messages, tool outputs, title or summary match the query."""

    def __init__(self, sessions: SessionRepository) -> None:
        self._sessions = sessions

    def __call__(self, query: str, limit: int = 50) -> Sequence[SessionSearchHit]:
        """The matching sessions with a snippet; InvalidInput for a blank or huge query."""
        text = query.strip()
        if not text:
            raise InvalidInput("The search query is empty; give some words to look for.")
        if len(text) > MAX_QUERY_CHARS:
            raise InvalidInput(f"The search query is too long (at most {MAX_QUERY_CHARS} characters).")
        return self._sessions.search(text, limit=limit)
