"""Sends one request of a turn, compacting first when it plainly cannot fit and recovering from overflow errors."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field

from domain.chat.request import PlannedRequest, RequestPlanner, fit_budget
from domain.chat.stream import RoundState, stream_round
from domain.context.estimator import TokenEstimator, calibration_key
from domain.errors import ContextOverflow
from domain.events import CompactCompleted, CompactStarted, TextDelta, ThinkingDelta
from domain.models import AiModel, SessionId, ToolDefinition
from domain.ports import ModelApiAdapter, ModelRepository
from domain.settings import ContextSettings
from domain.usecases.auto_compact import AutoCompactUseCase, CompactResult

RoundEvent = TextDelta | ThinkingDelta | CompactStarted | CompactCompleted


@dataclass
class RoundAttempt:
    """The request and the (possibly partial) response of the latest attempt, and the model as last learned."""

    model: AiModel
    planned: PlannedRequest | None = None
    state: RoundState = field(default_factory=RoundState)


def compact_event(result: CompactResult) -> CompactCompleted:
    """The CompactCompleted event for an AutoCompactUseCase result."""
    return CompactCompleted(
        did_compact=result.did_compact,
        fallback=result.fallback,
        tokens_before=result.tokens_before,
        tokens_after=result.tokens_after,
        summary_tokens=result.summary_tokens,
        reason=result.reason,
    )


class RoundSender:
    """One round's request: proactive compaction on a request over the window, then on a provider's overflow
    error: learn the limit, force a compaction, retry once; still too long: the summary plus the newest turns
    that fit. Only an overflow before any output is recovered; later failures propagate."""

    def __init__(
        self,
        planner: RequestPlanner,
        models: ModelRepository,
        auto_compact: AutoCompactUseCase,
        estimator: TokenEstimator,
    ) -> None:
        self._planner = planner
        self._models = models
        self._auto_compact = auto_compact
        self._estimator = estimator

    async def send(
        self,
        adapter: ModelApiAdapter,
        session_id: SessionId,
        attempt: RoundAttempt,
        *,
        system_prompt: str | None,
        tools: Sequence[ToolDefinition],
        settings: ContextSettings,
        proactive_trigger: str = "model_switch",
    ) -> AsyncGenerator[RoundEvent, None]:
        """Streams the reply's deltas (and any compaction events); `attempt` holds the result when done."""

        def plan(budget: int | None = None) -> PlannedRequest:
            return self._planner.plan(
                session_id, system_prompt=system_prompt, tools=tools, model=attempt.model, settings=settings,
                budget=budget,
            )

        planned = plan()
        fitted = False
        window = attempt.model.context_window_size
        if window and planned.estimate > window:
            async for event in self._compact(session_id, attempt.model, system_prompt, tools, proactive_trigger):
                yield event
            planned = plan()
            if planned.estimate > window:
                planned, fitted = plan(fit_budget(window, settings)), True
        overflowed = False
        while True:
            attempt.planned, attempt.state = planned, RoundState()
            try:
                stream = adapter.send_message_stream(
                    model_id=attempt.model.id,
                    system_prompt=planned.request.system_prompt,
                    messages=planned.request.messages,
                    tools=tools,
                    max_output_tokens=planned.max_output_tokens,
                )
                async with aclosing(stream_round(stream, attempt.state)) as deltas:
                    async for delta in deltas:
                        yield delta
                return
            except ContextOverflow as err:
                if attempt.state.has_output() or fitted:
                    raise
                attempt.model = self._learn(attempt.model, err, planned)
                window = attempt.model.context_window_size or err.limit or _shrunk(planned.estimate, err)
                undercount = planned.estimate / err.tokens if err.tokens and err.tokens > planned.estimate else 1.0
            if not overflowed:
                overflowed = True
                compacted = False
                async for event in self._compact(session_id, attempt.model, system_prompt, tools, "overflow"):
                    compacted = compacted or (isinstance(event, CompactCompleted) and event.did_compact)
                    yield event
                planned = plan()
                if compacted and planned.estimate <= window:  # an unchanged request would only be refused again
                    continue
            planned, fitted = plan(max(1, int(fit_budget(window, settings) * undercount))), True

    async def _compact(
        self,
        session_id: SessionId,
        model: AiModel,
        system_prompt: str | None,
        tools: Sequence[ToolDefinition],
        trigger: str,
    ) -> AsyncIterator[CompactStarted | CompactCompleted]:
        yield CompactStarted(trigger)
        result = await self._auto_compact(
            session_id, provider_id=model.provider_id, model_id=model.id, system_prompt=system_prompt, tools=tools,
            force=True, trigger=trigger,
        )
        yield compact_event(result)

    def _learn(self, model: AiModel, err: ContextOverflow, planned: PlannedRequest) -> AiModel:
        """Feeds the calibration with the refused request's real size and records the limit the error named."""
        if err.tokens and err.tokens > 0:
            self._estimator.calibrate(calibration_key(model.provider_id, model.id), err.tokens, planned.raw_estimate)
        if err.limit and err.limit > 0:
            self._models.record_limit(model.provider_id, model.id, err.limit)
            return self._models.resolve(model.provider_id, model.id)
        return model


def _shrunk(estimate: int, err: ContextOverflow) -> int:
    """A window to aim for when the provider named no limit and none is known: below what was refused."""
    refused = err.tokens or estimate
    return max(1, int(refused * 0.75))


def max_tokens_signal(attempt: RoundAttempt, settings: ContextSettings) -> bool:
    """A reply cut by max_tokens while the window was nearly full (or left too little room to answer)."""
    planned, window = attempt.planned, attempt.model.context_window_size
    if attempt.state.stop_reason != "max_tokens" or planned is None or not window:
        return False
    room_capped = planned.max_output_tokens < min(
        settings.max_output_tokens, attempt.model.max_output_tokens or settings.max_output_tokens
    )
    return room_capped or planned.estimate >= window * settings.compact_threshold_ratio
