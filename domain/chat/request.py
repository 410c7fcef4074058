"""Plans one request of a turn: build from the boundary, prune, fit to a budget, estimate, size the output."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.context.builder import BuiltRequest, CompactAwareMessageBuilder
from domain.context.estimator import TokenEstimator, calibration_key
from domain.context.meter import measure_context
from domain.context.pruner import ToolResultPruner
from domain.errors import NotFound
from domain.events import ContextStatus
from domain.models import AiModel, Message, Session, SessionId, ToolDefinition
from domain.ports import MessageRepository, SessionRepository
from domain.settings import ContextSettings

MIN_OUTPUT_TOKENS = 256


@dataclass(frozen=True)
class PlannedRequest:
    """A request ready to send, with its estimate (calibrated and raw) and the output tokens to ask for."""

    request: BuiltRequest
    estimate: int
    raw_estimate: int
    max_output_tokens: int


def output_budget(model: AiModel, settings: ContextSettings, estimate: int) -> int:
    """Output tokens to request: the setting, capped by the model's maximum and by the room left in the window."""
    wanted = settings.max_output_tokens
    if model.max_output_tokens:
        wanted = min(wanted, model.max_output_tokens)
    window = model.context_window_size
    if window:
        wanted = min(wanted, window - estimate)
    return max(MIN_OUTPUT_TOKENS, wanted)


def fit_budget(window: int, settings: ContextSettings) -> int:
    """Input tokens allowed when a request must be cut down to fit: the window minus a share kept for output."""
    reserve = max(MIN_OUTPUT_TOKENS, min(settings.max_output_tokens, window // 4))
    return max(1, window - reserve)


class RequestPlanner:
    """Turns the stored session into what the provider receives; stored messages are never changed."""

    def __init__(
        self,
        sessions: SessionRepository,
        messages: MessageRepository,
        builder: CompactAwareMessageBuilder,
        pruner: ToolResultPruner,
        estimator: TokenEstimator,
    ) -> None:
        self._sessions = sessions
        self._messages = messages
        self._builder = builder
        self._pruner = pruner
        self._estimator = estimator

    def plan(
        self,
        session_id: SessionId,
        *,
        system_prompt: str | None,
        tools: Sequence[ToolDefinition],
        model: AiModel,
        settings: ContextSettings,
        budget: int | None = None,
    ) -> PlannedRequest:
        """Builds and prunes (advancing the pruner's state); with a budget, keeps only the newest turns that fit."""
        session = self._session(session_id)
        built = self._build(session, system_prompt)
        request = BuiltRequest(built.system_prompt, self._pruner.prune(session_id, built.messages, settings))
        key = calibration_key(model.provider_id, model.id)
        if budget is not None:
            request = self._builder.fit_to_budget(request, budget, self._estimator, tools, key)
        raw = self._estimator.estimate_request(request.system_prompt, request.messages, tools, None)
        estimate = self._estimator.apply_calibration(raw, key)
        return PlannedRequest(request, estimate, raw, output_budget(model, settings, estimate))

    def preview(
        self,
        session_id: SessionId,
        *,
        system_prompt: str | None,
        settings: ContextSettings,
        model: AiModel,
        reserve_tokens: int = 0,
    ) -> BuiltRequest:
        """The next request as it would be sent now (the pruner's state is not advanced), cut to the newest turns
        that leave `reserve_tokens` of the model's window free (estimated never below the raw estimate)."""
        session = self._session(session_id)
        built = self._build(session, system_prompt)
        request = BuiltRequest(built.system_prompt, self._pruner.preview(session_id, built.messages, settings))
        window = model.context_window_size
        if window and reserve_tokens:
            key: str | None = calibration_key(model.provider_id, model.id)
            if self._estimator.ratio(key) < 1.0:  # stay on the safe side: never scale this estimate down
                key = None
            request = self._builder.fit_to_budget(request, max(1, window - reserve_tokens), self._estimator, (), key)
        return request

    def status(
        self,
        session_id: SessionId,
        *,
        system_prompt: str | None,
        tools: Sequence[ToolDefinition],
        model: AiModel,
        settings: ContextSettings,
    ) -> ContextStatus:
        """The estimate of the next request (pruning previewed, not advanced) against the model's window."""
        session = self._session(session_id)
        built = self._build(session, system_prompt)
        sent: list[Message] = self._pruner.preview(session_id, built.messages, settings)
        return measure_context(
            self._estimator,
            system_prompt=system_prompt,
            summary=session.compacted_summary,
            messages=sent,
            tools=tools,
            window=model.context_window_size,
            window_is_guess=model.window_is_guess,
            model_key=calibration_key(model.provider_id, model.id),
        )

    def _session(self, session_id: SessionId) -> Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise NotFound("session", session_id)
        return session

    def _build(self, session: Session, system_prompt: str | None) -> BuiltRequest:
        boundary = session.compact_boundary if session.compacted_summary else None
        stored = self._messages.since(session.id, boundary or 0)
        return self._builder.build(session, stored, system_prompt, self._messages.pinned(session.id))
