"""A long conversation across three providers driven through the engine: never over the window, nothing lost."""

from __future__ import annotations

import random
from dataclasses import dataclass

from data.providers.rules import PROVIDER_RULES
from domain.chat.request import RequestPlanner
from domain.context.builder import BuiltRequest, CompactAwareMessageBuilder
from domain.context.estimator import TokenEstimator, calibration_key
from domain.context.pruner import ToolResultPruner
from domain.context.session_context import SessionContext
from domain.context.truncator import ToolResultTruncator
from domain.models import Agent, AiModel, Message, MessageType, Provider, ProviderType, ToolStatus
from domain.settings import ContextSettings
from domain.usecases.auto_compact import AutoCompactUseCase
from tests.fake_thinking_rules import FakeThinkingRules
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
    AiModel(id="claude-sonnet-4-5", display_name=None, provider_id="anthropic", context_window_size=24_000),
    AiModel(id="claude-haiku-4-5", display_name=None, provider_id="anthropic", context_window_size=24_000),
    AiModel(id="gpt-4.1", display_name=None, provider_id="openai", context_window_size=16_000),
    AiModel(id="gpt-4.1-mini", display_name=None, provider_id="openai", context_window_size=16_000),
    AiModel(id="gemini-2.5-pro", display_name=None, provider_id="gemini", context_window_size=32_000),
    AiModel(id="gemini-2.5-flash", display_name=None, provider_id="gemini", context_window_size=32_000),
]
MAIN = [MODELS[0], MODELS[2], MODELS[4]]
TRUE_RATIO = {"anthropic": 1.15, "openai": 1.0, "gemini": 0.9}  # the providers' tokenizers differ from ours
OUTPUT_RESERVE = 2_000


@dataclass
class World:
    sessions: FakeSessionRepository
    messages: FakeMessageRepository
    estimator: TokenEstimator
    compact: AutoCompactUseCase
    pruner: ToolResultPruner
    builder: CompactAwareMessageBuilder
    settings: ContextSettings


def world() -> World:
    settings = ContextSettings(tool_result_max_chars=12_000)
    sessions = FakeSessionRepository()
    messages = FakeMessageRepository(sessions=sessions)
    sessions.create(make_session("s1"))
    estimator = TokenEstimator(FakeCalibrationStore(), PROVIDER_RULES)
    pruner = ToolResultPruner(settings)
    summary = "## Goal\nKeep going.\n## Critical Context\n" + "- detail\n" * 150
    compact = AutoCompactUseCase(
        store=FakeUnitOfWork(sessions, messages), sessions=sessions, models=FakeModelRepository(MODELS),
        summarizer=FakeSummarizer(default=summary), planner=RequestPlanner(CompactAwareMessageBuilder(), pruner,
                                                                          estimator, thinking=FakeThinkingRules()),
        clock=FakeClock(),
    )
    return World(sessions, messages, estimator, compact, pruner, CompactAwareMessageBuilder(), settings)


def context(w: World, model: AiModel) -> SessionContext:
    session = w.sessions.get("s1")
    assert session is not None
    boundary = session.boundary
    return SessionContext(
        session, Agent("a", "A"), w.settings, "You are helpful.", (),
        Provider(model.provider_id, model.provider_id, ProviderType.OPENAI_COMPATIBLE), model,
        tuple(w.messages.since("s1", boundary or 0)), tuple(w.messages.pinned("s1")),
    )


def plan(w: World, model: AiModel) -> tuple[BuiltRequest, int]:
    session = w.sessions.get("s1")
    assert session is not None
    boundary = session.boundary
    built = w.builder.build(session, w.messages.since("s1", boundary or 0), "You are helpful.", w.messages.pinned("s1"))
    request = BuiltRequest(built.system_prompt, w.pruner.prune("s1", built.messages, w.settings))
    return request, w.estimator.estimate_request(request.system_prompt, request.messages)


async def send(w: World, model: AiModel) -> int:
    """What SendMessage does before a request: plan; when too big, compact (forced) and re-plan; then fit."""
    key = calibration_key(model.provider_id, model.id)
    window = model.context_window_size or 0
    budget = window - OUTPUT_RESERVE
    request, raw = plan(w, model)
    if w.estimator.apply_calibration(raw, key) > budget:
        await w.compact(context(w, model), force=True, trigger="model_switch")
        request, raw = plan(w, model)
    if w.estimator.apply_calibration(raw, key) > budget:
        request = w.builder.fit_to_budget(request, budget, w.estimator, (), key)
        raw = w.estimator.estimate_request(request.system_prompt, request.messages)
    actual = int(raw * TRUE_RATIO[model.provider_id])
    assert actual <= window, f"context overflow: {actual} > {window}"
    w.estimator.calibrate(key, actual, raw)
    return actual


async def test_a_long_conversation_across_three_providers_never_overflows_and_keeps_every_message() -> None:
    rng = random.Random(7)
    w = world()
    truncator = ToolResultTruncator(w.settings)
    stored = 0
    for turn in range(400):
        model = MAIN[(turn // 40) % 3]
        w.messages.add(Message(id=f"u{turn}", session_id="s1", type=MessageType.USER,
                               content=f"request {turn}: " + "please look " * rng.randint(5, 300)))
        stored += 1
        for call in range(rng.choice([0, 0, 1, 3])):
            await send(w, model)
            call_id = f"c{turn}-{call}"
            w.messages.add(Message(id=f"t{turn}-{call}", session_id="s1", type=MessageType.TOOL_CALL,
                                   tool_call_id=call_id, tool_name="read", tool_input='{"path": "x"}'))
            out = truncator.truncate("log line 42 ok\n" * rng.randint(10, 3_000), f"r{turn}-{call}")
            w.messages.add(Message(id=f"r{turn}-{call}", session_id="s1", type=MessageType.TOOL_RESULT,
                                   tool_call_id=call_id, tool_name="read", tool_output=out.stored,
                                   tool_status=ToolStatus.SUCCESS), full_output=out.original)
            stored += 2
        await send(w, model)
        w.messages.add(Message(id=f"a{turn}", session_id="s1", type=MessageType.AI_RESPONSE,
                               content=f"answer {turn}: " + "here it is " * rng.randint(5, 200)))
        stored += 1
        await w.compact(context(w, model))
    session = w.sessions.get("s1")
    assert session is not None and session.compaction_count >= 10
    assert w.messages.count("s1") == stored
    assert w.messages.snapshot("s1")[0].id == "u0"
