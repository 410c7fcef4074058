"""Context status: what the next request of a session would send, for the gauge and `sessions context`."""

from __future__ import annotations

from domain.chat.request import RequestPlanner
from domain.context.context_loader import SessionContextLoader
from domain.events import ContextStatus
from domain.models import ModelId, ProviderId, SessionId


class GetContextStatusUseCase:
    """Measures the session's next request with the same loader and planner the send uses (so they agree)."""

    def __init__(self, contexts: SessionContextLoader, planner: RequestPlanner) -> None:
        self._contexts = contexts
        self._planner = planner

    def __call__(
        self, session_id: SessionId, *, provider_id: ProviderId | None = None, model_id: ModelId | None = None
    ) -> ContextStatus:
        """The estimate (window None when no model can be chosen or its window is unknown)."""
        ctx = self._contexts.load_to_measure(session_id, provider_id=provider_id, model_id=model_id)
        return self._planner.status(ctx)
