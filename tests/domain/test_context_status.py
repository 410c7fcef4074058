"""GetContextStatusUseCase and measure_context: the gauge's numbers and their breakdown."""

from __future__ import annotations

import pytest

from domain.context.estimator import TokenEstimator
from domain.context.meter import measure_context
from domain.context.pruner import ToolResultPruner
from domain.errors import NotFound
from domain.models import MessageType, ToolDefinition
from domain.settings import ContextSettings
from domain.usecases.context_status import GetContextStatusUseCase
from tests.domain.conversation import Conversation
from tests.domain.engine_setup import Engine


def status_use_case(engine: Engine, pruner: ToolResultPruner | None = None) -> GetContextStatusUseCase:
    return GetContextStatusUseCase(engine.sessions, engine.messages, engine.models, engine.estimator, pruner)


def test_breakdown_separates_system_summary_messages_tool_results_and_tools() -> None:
    c = Conversation()
    c.user("question " * 50)
    c.tool_round("output " * 400)
    c.assistant("answer " * 50)
    tool = ToolDefinition("t", "describes " * 30, {"type": "object"})
    status = measure_context(TokenEstimator(), system_prompt="be kind " * 20, summary="summary " * 100,
                             messages=c.messages, tools=[tool], window=10_000)
    b = status.breakdown
    assert b.system > 0 and b.summary > 90 and b.tool_results > 350 and b.messages > 100 and b.tools > 25
    assert status.used >= b.system + b.summary + b.messages + b.tool_results + b.tools
    assert status.window == 10_000


def test_status_of_a_session_uses_its_current_model_window() -> None:
    engine = Engine()
    engine.chat(10)
    status = status_use_case(engine)("s1")
    assert status.window == 10_000 and not status.window_is_guess
    assert status.used == pytest.approx(engine.estimator.estimate_messages(engine.messages.snapshot("s1")), rel=0.05)


async def test_status_after_compaction_counts_the_summary_and_only_recent_messages() -> None:
    engine = Engine()
    engine.chat(45)
    before = status_use_case(engine)("s1")
    await engine.compact("s1", provider_id="anthropic", model_id="claude-sonnet-4-5")
    after = status_use_case(engine)("s1")
    assert after.used < before.used and after.breakdown.summary > 0


def test_status_without_a_known_model_has_no_window() -> None:
    engine = Engine()
    engine.chat(2)
    status = status_use_case(engine)("s1", provider_id="local", model_id="unknown-model")
    assert status.window is None and status.used > 0 and status.window_is_guess


def test_status_reflects_pruning_of_old_tool_results() -> None:
    engine = Engine()
    engine.say(MessageType.USER, "go")
    for i in range(8):
        engine.say(MessageType.TOOL_CALL, "", tool_call_id=f"c{i}", tool_name="t", tool_input="{}")
        engine.say(MessageType.TOOL_RESULT, "", tool_call_id=f"c{i}", tool_name="t", tool_output="data " * 4_000)
    plain = status_use_case(engine)("s1")
    pruned = status_use_case(engine, ToolResultPruner(ContextSettings()))("s1")
    assert pruned.breakdown.tool_results < plain.breakdown.tool_results / 2


def test_status_of_an_unknown_session_is_not_found() -> None:
    with pytest.raises(NotFound):
        status_use_case(Engine())("nope")


class ListedTools:
    """A ToolExecutor that only lists definitions."""

    def __init__(self, *tools: ToolDefinition) -> None:
        self.tools = tools
        self.asked: list[object] = []

    def definitions(self, enabled=None):
        self.asked.append(enabled)
        return [t for t in self.tools if enabled is None or t.name in enabled]

    async def execute(self, name, arguments, context):
        raise AssertionError("status never runs tools")


def test_status_derives_prompt_memories_and_tools_from_the_sessions_agent() -> None:
    from dataclasses import replace
    from datetime import UTC, datetime

    from domain.models import Agent, Memory
    from tests.fakes import FakeAgentRepository, FakeMemoryRepository

    engine = Engine()
    engine.chat(2)
    session = engine.sessions.get("s1")
    assert session is not None
    engine.sessions.update(replace(session, current_agent_id="a"))
    agents = FakeAgentRepository([Agent(id="a", name="A", system_prompt="persona " * 100, enabled_tools=("t",))])
    memories = FakeMemoryRepository()
    memories.add(Memory(id="x", content="likes tea " * 30, created_at=datetime(2026, 1, 1, tzinfo=UTC), agent_id="a"))
    tools = ListedTools(ToolDefinition("t", "describes " * 50, {"type": "object"}),
                        ToolDefinition("other", "unused " * 500, {}))
    bare = status_use_case(engine)("s1")
    full = GetContextStatusUseCase(engine.sessions, engine.messages, engine.models, engine.estimator,
                                   agents=agents, memories=memories, tools=tools)("s1")
    assert full.breakdown.system > bare.breakdown.system + 100 + 30
    assert 40 < full.breakdown.tools < 200
    assert tools.asked == [["t"]]
