"""Benchmark: a week-long conversation across three providers driven through the context engine with fakes."""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from dataclasses import dataclass, field

from data.providers.rules import PROVIDER_RULES
from data.providers.thinking_rules import ProviderThinkingRules
from domain.chat.request import RequestPlanner
from domain.context.builder import BuiltRequest, CompactAwareMessageBuilder
from domain.context.estimator import TokenEstimator, calibration_key
from domain.context.pruner import ToolResultPruner
from domain.context.session_context import SessionContext
from domain.context.truncator import ToolResultTruncator
from domain.models import Agent, AiModel, Message, MessageType, Provider, ProviderType, ToolStatus
from domain.settings import ContextSettings
from domain.usecases.auto_compact import AutoCompactUseCase
from tests.fakes import (
    FakeCalibrationStore,
    FakeClock,
    FakeMessageRepository,
    FakeModelRepository,
    FakeSessionRepository,
    FakeSummarizer,
    make_session,
)
from tests.fakes_uow import FakeUnitOfWork

MODELS = [
    AiModel(id="claude-sonnet-4-5", display_name=None, provider_id="anthropic", context_window_size=200_000),
    AiModel(id="claude-haiku-4-5", display_name=None, provider_id="anthropic", context_window_size=200_000),
    AiModel(id="gpt-4o", display_name=None, provider_id="openai", context_window_size=128_000),
    AiModel(id="gpt-4o-mini", display_name=None, provider_id="openai", context_window_size=128_000),
    AiModel(id="llama3.1:8b", display_name=None, provider_id="ollama", context_window_size=32_000),
]
SCHEDULE = [MODELS[0], MODELS[2], MODELS[4]]  # switch every 25 turns: Claude, GPT-4o, a local 32K model
TRUE_RATIO = {"anthropic": 1.2, "openai": 1.0, "ollama": 1.1}  # provider tokenizers differ from the estimate
OUTPUT_RESERVE = 4_096
SYSTEM = "You are a careful assistant."


@dataclass
class Stats:
    """What the run observed."""

    requests: int = 0
    overflows: int = 0
    fitted: int = 0
    forced: int = 0
    use: list[float] = field(default_factory=list)
    triggers: Counter[str] = field(default_factory=Counter)


class Run:
    """One simulated conversation."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.settings = ContextSettings()
        self.sessions = FakeSessionRepository()
        self.messages = FakeMessageRepository(sessions=self.sessions)
        self.sessions.create(make_session("s1"))
        self.estimator = TokenEstimator(FakeCalibrationStore(), PROVIDER_RULES)
        self.pruner = ToolResultPruner(self.settings)
        self.builder = CompactAwareMessageBuilder()
        self.summarizer = FakeSummarizer(default="## Goal\nShip it.\n## Critical Context\n" + "- a fact\n" * 400)
        self.compact = AutoCompactUseCase(
            store=FakeUnitOfWork(self.sessions, self.messages), sessions=self.sessions,
            models=FakeModelRepository(MODELS), summarizer=self.summarizer,
            planner=RequestPlanner(self.builder, self.pruner, self.estimator, thinking=ProviderThinkingRules()),
            clock=FakeClock(),
        )
        self.truncator = ToolResultTruncator(self.settings)
        self.stats = Stats()

    def context(self, model: AiModel) -> SessionContext:
        """The session as its next request sees it (these fakes have no agents or providers to load it from)."""
        session = self.sessions.get("s1")
        assert session is not None
        boundary = session.boundary
        return SessionContext(
            session, Agent("a", "A"), self.settings, SYSTEM, (),
            Provider(model.provider_id, model.provider_id, ProviderType.OPENAI_COMPATIBLE), model,
            tuple(self.messages.since("s1", boundary or 0)),
            tuple(self.messages.pinned("s1")) if boundary is not None else (),
        )

    def plan(self) -> tuple[BuiltRequest, int]:
        session = self.sessions.get("s1")
        assert session is not None
        boundary = session.boundary
        stored = self.messages.since("s1", boundary or 0)
        built = self.builder.build(session, stored, SYSTEM, self.messages.pinned("s1"))
        request = BuiltRequest(built.system_prompt, self.pruner.prune("s1", built.messages, self.settings))
        return request, self.estimator.estimate_request(request.system_prompt, request.messages)

    async def send(self, model: AiModel) -> None:
        key = calibration_key(model.provider_id, model.id)
        window = model.context_window_size or 0
        budget = window - OUTPUT_RESERVE
        request, raw = self.plan()
        if self.estimator.apply_calibration(raw, key) > budget:
            self.stats.forced += 1
            result = await self.compact(self.context(model), force=True, trigger="model_switch")
            self.stats.triggers[f"forced:{result.reason or 'ok'}"] += 1
            request, raw = self.plan()
        if self.estimator.apply_calibration(raw, key) > budget:
            self.stats.fitted += 1
            request = self.builder.fit_to_budget(request, budget, self.estimator, (), key)
            raw = self.estimator.estimate_request(request.system_prompt, request.messages)
        actual = int(raw * TRUE_RATIO[model.provider_id])
        self.stats.requests += 1
        self.stats.use.append(actual / window)
        if actual > window:
            self.stats.overflows += 1
        self.estimator.calibrate(key, actual, raw)

    def add(self, message: Message, full_output: str | None = None) -> None:
        self.messages.add(message, full_output=full_output)

    async def turn(self, n: int, model: AiModel) -> None:
        rng = self.rng
        self.add(Message(id=f"u{n}", session_id="s1", type=MessageType.USER,
                         content=f"request {n}: " + "please check the deployment " * rng.randint(3, 120)))
        for call in range(rng.choice([0, 0, 1, 2, 4])):
            await self.send(model)
            call_id = f"c{n}-{call}"
            self.add(Message(id=f"t{n}-{call}", session_id="s1", type=MessageType.TOOL_CALL, tool_call_id=call_id,
                             tool_name="http_request", tool_input='{"url": "https://example.org/status"}'))
            out = self.truncator.truncate('{"status": "ok", "latency_ms": 12}\n' * rng.randint(20, 2_500),
                                          f"r{n}-{call}")
            self.add(Message(id=f"r{n}-{call}", session_id="s1", type=MessageType.TOOL_RESULT, tool_call_id=call_id,
                             tool_name="http_request", tool_output=out.stored, tool_status=ToolStatus.SUCCESS),
                     full_output=out.original)
        await self.send(model)
        self.add(Message(id=f"a{n}", session_id="s1", type=MessageType.AI_RESPONSE,
                         content=f"answer {n}: " + "the service looks healthy " * rng.randint(5, 150)))
        result = await self.compact(self.context(model))
        if result.did_compact or result.fallback:
            self.stats.triggers[f"auto:{result.reason or 'ok'}"] += 1


async def simulate(turns: int = 1_050, seed: int = 1) -> tuple[Run, float]:
    """A week of 150 turns a day; returns the run and its wall time in seconds."""
    run = Run(seed)
    start = time.perf_counter()
    for n in range(turns):
        await run.turn(n, SCHEDULE[(n // 25) % len(SCHEDULE)])
    return run, time.perf_counter() - start


def main() -> None:
    """Prints what a week-long conversation did to the context."""
    run, seconds = asyncio.run(simulate())
    s = run.stats
    session = run.sessions.get("s1")
    assert session is not None
    use = sorted(s.use)
    print("Week-long conversation (1,050 turns, 3 models with 200K / 128K / 32K windows, tool calls, switches)")
    print(f"  messages stored          {run.messages.count('s1')} (all kept)")
    print(f"  requests                 {s.requests}")
    print(f"  context overflows        {s.overflows}")
    print(f"  compactions              {session.compaction_count} ({dict(s.triggers)})")
    print(f"  summarizer calls         {len(run.summarizer.calls)}")
    print(f"  forced before sending    {s.forced}; cut to fit (double fallback) {s.fitted}")
    print(f"  context use of window    median {use[len(use) // 2]:.0%}, p99 {use[int(len(use) * 0.99)]:.0%}, "
          f"max {use[-1]:.0%}")
    print(f"  engine time              {seconds:.1f} s ({seconds / s.requests * 1000:.1f} ms per request)")


if __name__ == "__main__":
    main()
