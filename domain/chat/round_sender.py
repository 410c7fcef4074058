"""Sends one request of a turn, compacting first when it plainly cannot fit and recovering from overflow errors."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass, field

from domain.chat.compaction import Compactor
from domain.chat.request import PlannedRequest, RequestPlanner, fit_budget, input_capacity, model_key
from domain.chat.stream import RoundState, stream_round
from domain.context.session_context import SessionContext
from domain.errors import ContextOverflow, ReasoningRejected
from domain.events import CompactCompleted, CompactStarted, Notice, TextDelta, ThinkingDelta, Waiting
from domain.models import AiModel
from domain.ports import ModelRepository
from domain.provider_ports import ModelApiAdapter
from domain.settings import ContextSettings
from domain.web_support import model_takes_web_search

RoundEvent = TextDelta | ThinkingDelta | Waiting | CompactStarted | CompactCompleted | Notice


@dataclass
class RoundAttempt:
    """The request and the (possibly partial) response of the latest attempt, and the session's context as it
    stands now (after a compaction inside the round, with a model whose limit was just learned)."""

    ctx: SessionContext
    planned: PlannedRequest | None = None
    state: RoundState = field(default_factory=RoundState)

    @property
    def model(self) -> AiModel:
        """The model the round talks to."""
        assert self.ctx.model is not None, "a round needs a context with a model"
        return self.ctx.model


class RoundSender:
    """One round's request: proactive compaction on a request over the window, then on a provider's overflow
    error: learn the limit, force a compaction, retry once; still too long: the summary plus the newest turns
    that fit. Only an overflow before any output is recovered; later failures propagate. Each request is held to
    the settings' deadlines (headers, idle, round)."""

    def __init__(self, planner: RequestPlanner, models: ModelRepository, auto_compact: Compactor) -> None:
        self._planner = planner
        self._models = models
        self._auto_compact = auto_compact

    async def send(
        self, adapter: ModelApiAdapter, attempt: RoundAttempt, *, proactive_trigger: str = "model_switch"
    ) -> AsyncGenerator[RoundEvent, None]:
        """Streams the reply's deltas (and any compaction events); `attempt` holds the result when done."""

        def plan(budget: int | None = None) -> PlannedRequest:
            return self._planner.plan(attempt.ctx, budget)

        settings = attempt.ctx.settings
        planned = plan()
        fitted = False
        window = input_capacity(attempt.model)
        if window and planned.estimate > window:
            async for event in self._compact(attempt, proactive_trigger):
                yield event
            planned = plan()
            if planned.estimate > window:
                planned, fitted = plan(fit_budget(window, settings)), True
        overflowed = stripped = False
        while True:
            attempt.planned, attempt.state = planned, RoundState()
            try:
                stream = adapter.send_message_stream(
                    model_id=attempt.model.id,
                    system_prompt=planned.request.system_prompt,
                    messages=planned.request.messages,
                    tools=attempt.ctx.tools,
                    max_output_tokens=planned.max_output_tokens,
                    deadlines=settings.deadlines,
                    reasoning=settings.reasoning,
                    capabilities=attempt.model.capabilities,
                    cache_key=attempt.ctx.session.id,
                    **({"web_search": settings.web} if settings.web_search and model_takes_web_search(attempt.model)
                       else {}),  # adapters without it, and models that refuse it: unasked
                )
                async with aclosing(stream_round(stream, attempt.state, settings.deadlines)) as deltas:
                    async for delta in deltas:
                        yield delta
                return
            except ReasoningRejected:
                if attempt.state.has_output() or stripped:
                    raise
                stripped = True  # never a dead end: the same request once more without the reasoning sent back
                attempt.ctx = attempt.ctx.without_reasoning()
                yield Notice(REASONING_DROPPED)
                planned = plan(kept_budget(fitted, window, settings))
                continue
            except ContextOverflow as err:
                if attempt.state.has_output() or fitted:
                    raise
                self._learn(attempt, err, planned)
                window = input_capacity(attempt.model) or err.limit or _shrunk(planned.estimate, err)
                undercount = planned.estimate / err.tokens if err.tokens and err.tokens > planned.estimate else 1.0
            if not overflowed:
                overflowed = True
                compacted = False
                async for event in self._compact(attempt, "overflow"):
                    compacted = compacted or (isinstance(event, CompactCompleted) and event.did_compact)
                    yield event
                planned = plan()
                if compacted and planned.estimate <= window:  # an unchanged request would only be refused again
                    continue
            planned, fitted = plan(max(1, int(fit_budget(window, settings) * undercount))), True

    async def _compact(self, attempt: RoundAttempt, trigger: str) -> AsyncIterator[CompactStarted | CompactCompleted]:
        yield CompactStarted(trigger)
        result = await self._auto_compact(attempt.ctx, force=True, trigger=trigger)
        if result.session is not None:
            attempt.ctx = attempt.ctx.with_session(result.session)
        yield result.as_event()

    def _learn(self, attempt: RoundAttempt, err: ContextOverflow, planned: PlannedRequest) -> None:
        """Feeds the calibration with the refused request's real size and records the limit the error named."""
        model = attempt.model
        key = model_key(attempt.ctx)
        if err.tokens and err.tokens > 0 and key is not None:
            self._planner.estimator.learn(key, err.tokens, planned.size)
        if err.limit and err.limit > 0:
            self._models.record_limit(model.provider_id, model.id, err.limit, input_only=err.input_limit)
            attempt.ctx = attempt.ctx.with_model(self._models.resolve(model.provider_id, model.id))

REASONING_DROPPED = (
    "The provider no longer accepted the model's earlier reasoning (for example after a key or model change); it was "
    "sent again without it. The conversation itself is unchanged."
)


def kept_budget(fitted: bool, window: int | None, settings: ContextSettings) -> int | None:
    """The budget a re-planned request keeps: the fitted one when the request had been cut to fit."""
    return fit_budget(window, settings) if fitted and window else None


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
