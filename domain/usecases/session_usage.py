"""Session usage: a session's token totals and its replies' tokens per model, for the gauge's cost."""

from __future__ import annotations

from dataclasses import dataclass

from domain.lookup import require_session
from domain.models import ModelId, SessionId
from domain.ports import MessageRepository, SessionRepository


@dataclass(frozen=True)
class ModelTokens:
    """Prompt and output tokens the replies of one model reported."""

    model_id: ModelId | None
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class SessionUsage:
    """Totals of a session and the same split by the model that answered."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    by_model: tuple[ModelTokens, ...]
    searches: tuple[tuple[ModelId | None, int], ...] = ()  # web searches run, per model (priced per search)

    @property
    def cache_read_ratio(self) -> float:
        """The share of input read from the provider's prompt cache."""
        return min(1.0, self.cache_read_tokens / self.input_tokens) if self.input_tokens else 0.0


class SessionUsageQuery:
    """Reads the totals the store keeps and sums the replies' reported tokens per model."""

    def __init__(self, sessions: SessionRepository, messages: MessageRepository) -> None:
        self._sessions = sessions
        self._messages = messages

    def __call__(self, session_id: SessionId) -> SessionUsage:
        """The usage; NotFound for an unknown or deleted session."""
        session = require_session(self._sessions, session_id)
        return SessionUsage(
            session.total_input_tokens, session.total_output_tokens, session.total_cache_read_tokens,
            tuple(ModelTokens(k, i, o) for k, i, o in self._messages.reply_tokens(session_id)),
            tuple(self._messages.reply_searches(session_id)),
        )
