"""Context status: how full a session's context is for its model, for the gauge and the CLI."""

from __future__ import annotations

from collections.abc import Sequence

from domain.context.builder import CompactAwareMessageBuilder
from domain.context.estimator import TokenEstimator, calibration_key
from domain.context.meter import measure_context
from domain.context.pruner import ToolResultPruner
from domain.context.settings_source import SettingsProvider
from domain.errors import NotFound
from domain.events import ContextStatus
from domain.models import ModelId, ProviderId, SessionId, ToolDefinition
from domain.ports import MessageRepository, ModelRepository, SessionRepository


class GetContextStatusUseCase:
    """Estimates what the next request of a session would cost against its model's window."""

    def __init__(
        self,
        sessions: SessionRepository,
        messages: MessageRepository,
        models: ModelRepository,
        estimator: TokenEstimator,
        pruner: ToolResultPruner | None = None,
        settings_provider: SettingsProvider | None = None,
    ) -> None:
        self._sessions = sessions
        self._messages = messages
        self._models = models
        self._estimator = estimator
        self._pruner = pruner
        self._settings_provider = settings_provider
        self._builder = CompactAwareMessageBuilder()

    def __call__(
        self,
        session_id: SessionId,
        *,
        provider_id: ProviderId | None = None,
        model_id: ModelId | None = None,
        system_prompt: str | None = None,
        tools: Sequence[ToolDefinition] = (),
    ) -> ContextStatus:
        """The estimate (window None when no model is chosen or its window is unknown)."""
        session = self._sessions.get(session_id)
        if session is None:
            raise NotFound("session", session_id)
        provider = provider_id or session.current_provider_id
        model = model_id or session.current_model_id
        window: int | None = None
        guess = False
        key: str | None = None
        if provider and model:
            resolved = self._models.resolve(provider, model)
            window, guess = resolved.context_window_size, resolved.window_is_guess
            key = calibration_key(provider, model)
        stored = self._messages.since(session_id, session.compact_boundary or 0)
        built = self._builder.build(session, stored, None, self._messages.pinned(session_id))
        settings = self._settings_provider(session) if self._settings_provider else None
        sent = self._pruner.preview(session_id, built.messages, settings) if self._pruner else built.messages
        return measure_context(
            self._estimator,
            system_prompt=system_prompt,
            summary=session.compacted_summary,
            messages=sent,
            tools=tools,
            window=window,
            window_is_guess=guess,
            model_key=key,
        )
