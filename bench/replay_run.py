"""Runs the scripted session through one strategy and collects what the results table reports."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from bench.replay_brain import answered_correctly
from bench.replay_script import Turn
from bench.replay_servers import BenchAccounting, RequestRecord, ServerClock
from bench.replay_strategies import StrategyEnv
from domain.chat.round_sender import REASONING_DROPPED
from domain.events import (
    ChatError,
    CompactCompleted,
    MemoryFlushed,
    Notice,
    ResponseComplete,
    TextDelta,
    ThinkingDelta,
)
from domain.models import SessionId
from tests.fakeservers.tokens import o200k_counter


@dataclass(frozen=True)
class Route:
    """Which provider, model and fake server a turn talks to."""

    provider_id: str
    model_id: str
    server: BenchAccounting


@dataclass
class TurnStats:
    """What one turn cost and showed."""

    index: int
    error: str | None
    context_tokens: int
    overhead_ms: float
    cpu_ms: float
    engine_ms: float
    reply: str
    requests: tuple[RequestRecord, ...] = ()


@dataclass
class RunResult:
    """One strategy's run of the script."""

    name: str
    window: int
    turns: list[TurnStats] = field(default_factory=list)
    records: list[RequestRecord] = field(default_factory=list)
    compactions: int = 0
    fallbacks: int = 0
    memories_saved: int = 0
    summary_tokens: int = 0
    recall_correct: int = 0
    recall_total: int = 0
    preload_overhead_ms: list[float] = field(default_factory=list)
    preload_cpu_ms: list[float] = field(default_factory=list)
    preload_engine_ms: list[float] = field(default_factory=list)
    preload_errors: int = 0
    preload_note: str = ""
    thinking_deltas: int = 0  # thinking pieces the app streamed to the user
    app_reasoning_tokens: int = 0  # reasoning tokens the app read from the providers' usage (chat rounds)
    reasoning_dropped: int = 0  # requests resent without reasoning after the provider refused it (a Notice)

    @property
    def errors(self) -> int:
        """Turns that ended with an error the user sees."""
        return sum(1 for t in self.turns if t.error)

    @property
    def first_error_turn(self) -> int | None:
        """The first turn that failed."""
        return next((t.index for t in self.turns if t.error), None)

    @property
    def overhead_ms(self) -> list[float]:
        """App-side milliseconds per turn."""
        return [t.overhead_ms for t in self.turns]

    @property
    def cpu_ms(self) -> list[float]:
        """CPU milliseconds of the app's event-loop thread per turn (the servers run on other threads)."""
        return [t.cpu_ms for t in self.turns]


class TurnDriver:
    """Sends turns through a strategy's SendMessageUseCase and measures them against the servers' clock."""

    def __init__(self, env: StrategyEnv, clock: ServerClock, routes: Sequence[Route], switch_every: int = 0) -> None:
        self.env, self.clock, self.routes, self.switch_every = env, clock, list(routes), switch_every

    def route_for(self, position: int, total: int) -> Route:
        """The provider of the turn at `position` (0-based): one provider, the next one every `switch_every` turns
        (round robin), or the session split evenly."""
        if self.switch_every > 0:
            return self.routes[(position // self.switch_every) % len(self.routes)]
        share = max(1, -(-total // len(self.routes)))
        return self.routes[min(position // share, len(self.routes) - 1)]

    async def run_turn(self, session_id: SessionId, turn: Turn, route: Route, result: RunResult) -> TurnStats:
        """One turn; events tallied into `result`, records of the requests appended to it."""
        marks = [len(r.server.records) for r in self.routes]
        server_before = self.clock.seconds
        engine_before = self.env.engine_timer.seconds
        started, cpu_started = time.perf_counter(), time.thread_time()
        error: str | None = None
        text: list[str] = []
        async for event in self.env.send_message(
            session_id, turn.user_text, provider_id=route.provider_id, model_id=route.model_id
        ):
            if isinstance(event, TextDelta):
                text.append(event.text)
            elif isinstance(event, ThinkingDelta):
                result.thinking_deltas += 1
            elif isinstance(event, ResponseComplete):
                result.app_reasoning_tokens += event.usage.reasoning_tokens
            elif isinstance(event, Notice) and event.message == REASONING_DROPPED:
                result.reasoning_dropped += 1
            elif isinstance(event, ChatError):
                error = f"{event.kind}: {event.message}"
            elif isinstance(event, CompactCompleted):
                result.compactions += int(event.did_compact)
                result.fallbacks += int(event.fallback)
            elif isinstance(event, MemoryFlushed):
                result.memories_saved += event.saved_count
        wall, cpu = time.perf_counter() - started, time.thread_time() - cpu_started
        server = self.clock.seconds - server_before
        new: list[RequestRecord] = []
        for r, mark in zip(self.routes, marks, strict=True):
            new.extend(r.server.records[mark:])
        result.records.extend(new)
        context = max((rec.input_tokens for rec in new if rec.kind == "chat"), default=0)
        engine = self.env.engine_timer.seconds - engine_before
        return TurnStats(turn.index, error, context, max(0.0, wall - server) * 1000, cpu * 1000, engine * 1000,
                         "".join(text), tuple(new))


async def run_script(driver: TurnDriver, name: str, window: int, turns: Sequence[Turn]) -> RunResult:
    """Runs every turn of the script in one new session."""
    result = RunResult(name, window)
    first = driver.route_for(0, len(turns))
    session = driver.env.create_session(provider_id=first.provider_id, model_id=first.model_id)
    for position, turn in enumerate(turns):
        stats = await driver.run_turn(session.id, turn, driver.route_for(position, len(turns)), result)
        result.turns.append(stats)
        if turn.kind == "recall":
            result.recall_total += 1
            result.recall_correct += int(stats.error is None and answered_correctly(turn, stats.reply))
    final = driver.env.storage.sessions.get(session.id)
    if final is not None and final.compacted_summary:
        result.summary_tokens = o200k_counter(final.compacted_summary)
    return result


async def run_preloaded(driver: TurnDriver, result: RunResult, session_id: SessionId, turns: Sequence[Turn]) -> None:
    """Runs turns in a preloaded session, keeping only their app-side overhead (and errors) in `result`."""
    scratch = RunResult(result.name, result.window)
    for position, turn in enumerate(turns):
        stats = await driver.run_turn(session_id, turn, driver.route_for(position, len(turns)), scratch)
        result.preload_overhead_ms.append(stats.overhead_ms)
        result.preload_cpu_ms.append(stats.cpu_ms)
        result.preload_engine_ms.append(stats.engine_ms)
        result.preload_errors += int(stats.error is not None)
