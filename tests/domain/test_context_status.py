"""GetContextStatusUseCase and measure_context: the gauge's numbers, their breakdown, and agreement with the send."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from domain.context.estimator import TokenEstimator
from domain.context.meter import measure_context
from domain.errors import NotFound
from domain.events import ContextStatusChanged
from domain.models import Agent, Memory, Message, MessageType, ToolDefinition, ToolStatus, WindowSource
from domain.settings import ContextSettings
from tests.domain.conversation import Conversation
from tests.domain.counting import CountingEstimator
from tests.fakes_config import FakeCalibrationStore
from tests.fakes_turn import TurnWorld, make_world, reply, tool_round


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


@pytest.mark.parametrize("ratio", [0.7, 1.0, 1.37, 2.5])
def test_the_breakdown_is_the_calibrated_total_shared_out_so_its_rows_add_up(ratio: float) -> None:
    c = Conversation()
    c.user("question " * 50)
    c.tool_round("output " * 400)
    c.assistant("answer " * 50)
    store = FakeCalibrationStore()
    store.ratios["p/m"] = ratio
    tool = ToolDefinition("t", "describes " * 30, {"type": "object"})
    status = measure_context(TokenEstimator(store), system_prompt="be kind " * 20, summary="summary " * 100,
                             messages=c.messages, tools=[tool], model_key="p/m", reasoning=321)
    raw = measure_context(TokenEstimator(), system_prompt="be kind " * 20, summary="summary " * 100,
                          messages=c.messages, tools=[tool], reasoning=321)
    b, r = status.breakdown, raw.breakdown
    parts = [b.system, b.summary, b.messages, b.tool_results, b.tools, b.reasoning, b.attachments]
    assert sum(parts) == status.used == TokenEstimator(store).apply_calibration(raw.used, "p/m")
    for calibrated, plain in zip(parts, [r.system, r.summary, r.messages, r.tool_results, r.tools, r.reasoning],
                                 strict=False):
        assert abs(calibrated - plain * ratio) < 1  # each row calibrated alike, rounding shared out


def chat(world: TurnWorld, turns: int, words: int = 100) -> None:
    for i in range(turns):
        world.messages.add(Message(f"u{i}", "s1", MessageType.USER, f"question {i}: " + "word " * words))
        world.messages.add(Message(f"a{i}", "s1", MessageType.AI_RESPONSE, f"answer {i}: " + "word " * words))


def tool_history(world: TurnWorld, rounds: int = 8, chars: int = 20_000) -> None:
    world.messages.add(Message("u", "s1", MessageType.USER, "go"))
    for i in range(rounds):
        world.messages.add(Message(f"c{i}", "s1", MessageType.TOOL_CALL, tool_call_id=f"c{i}", tool_name="t",
                                   tool_input="{}"))
        world.messages.add(Message(f"r{i}", "s1", MessageType.TOOL_RESULT, tool_call_id=f"c{i}", tool_name="t",
                                   tool_output="data " * (chars // 5), tool_status=ToolStatus.SUCCESS))
    world.messages.add(Message("a", "s1", MessageType.AI_RESPONSE, "done"))


def test_status_of_a_session_uses_the_model_the_next_send_would_use() -> None:
    world = make_world(window=10_000)
    chat(world, 10)
    status = world.status("s1")
    assert (status.provider_id, status.model_id, status.window) == ("anthropic", "claude-big", 10_000)
    assert status.window_source == WindowSource.REGISTRY.value and not status.window_is_guess
    assert status.threshold == 8_500 and status.percent == pytest.approx(100 * status.used / 10_000, abs=0.1)
    assert status.warnings == ()


async def test_status_after_compaction_counts_the_summary_and_only_recent_messages() -> None:
    world = make_world(window=10_000)
    world.summarizer.default = "## Goal\nSummary."
    chat(world, 45)
    before = world.status("s1")
    result = await world.auto_compact(world.context("s1"), force=True)
    after = world.status("s1")
    assert result.did_compact and after.used < before.used and after.breakdown.summary > 0
    assert after.used == result.tokens_after


def test_status_of_a_model_with_a_guessed_window_warns() -> None:
    world = make_world()
    world.models.guess_window = 8_192
    chat(world, 2)
    status = world.status("s1", provider_id="anthropic", model_id="unknown-model")
    assert status.window == 8_192 and status.window_is_guess
    assert any("guess" in w for w in status.warnings)


def test_status_without_any_provider_has_no_window_and_says_so() -> None:
    world = make_world()
    world.providers.providers.clear()
    chat(world, 2)
    status = world.status("s1")
    assert status.window is None and status.used > 0 and status.model_id is None
    assert status.warnings == ("No model is chosen for this conversation yet.",)


def test_status_reflects_pruning_of_old_tool_results_and_an_agents_override_turns_it_off() -> None:
    world = make_world()
    tool_history(world)
    pruned = world.status("s1")
    world.agents.update(replace(world.agents.get("default"), context_overrides={"pruning_enabled": False}))
    unpruned = world.status("s1")
    assert pruned.breakdown.tool_results < unpruned.breakdown.tool_results / 2


def test_status_of_an_unknown_session_is_not_found() -> None:
    with pytest.raises(NotFound):
        make_world().status("nope")


def test_status_derives_prompt_memories_and_tools_from_the_sessions_agent() -> None:
    world = make_world(handlers={"t": lambda args, ctx: "x", "other": lambda args, ctx: "y"})
    chat(world, 2)
    bare = world.status("s1")
    world.agents.update(Agent(id="default", name="Default", system_prompt="persona " * 100, enabled_tools=("t",)))
    world.memories.add(Memory(id="x", content="likes tea " * 30, created_at=datetime(2026, 1, 1, tzinfo=UTC),
                              agent_id="default"))
    full = world.status("s1")
    assert full.breakdown.system > bare.breakdown.system + 100 + 30
    assert 0 < full.breakdown.tools < bare.breakdown.tools  # only the agent's tool is offered and counted


async def test_with_pruning_off_in_the_agent_the_gauge_after_a_turn_equals_what_the_next_send_costs() -> None:
    """The live bug: the status was measured with the app's defaults while the turn used the agent's settings."""
    world = make_world(handlers={"t": lambda args, ctx: "data " * 6_000})
    world.agents.update(replace(world.agents.get("default"), context_overrides={"pruning_enabled": False}))
    tool_history(world, rounds=6)
    adapter = world.adapter()
    adapter.scripts.extend([tool_round(("c9", "t", {})), reply("ok")])
    events = await world.turn("once more")
    reported = [e.status for e in events if isinstance(e, ContextStatusChanged)][-1]
    after = world.status("s1")
    assert reported == after  # the turn's own report and a fresh read (the GUI's path) agree exactly
    # ... and both are what the next request really is: plan it the way the send does
    planned = world.planner.plan(world.context("s1"))
    assert after.used == planned.estimate
    # every tool result is sent as stored (pruning off): the gauge counts them all
    stored = {m.id: m.tool_output for m in world.stored() if m.type is MessageType.TOOL_RESULT}
    sent_results = [m for m in planned.request.messages if m.type is MessageType.TOOL_RESULT]
    assert len(sent_results) == 7 and all(m.tool_output == stored[m.id] for m in sent_results)
    assert after.breakdown.tool_results > 6 * 4_000


def test_settings_are_validated_in_the_domain_whatever_the_front_end() -> None:
    from domain.errors import InvalidInput

    with pytest.raises(InvalidInput, match="threshold"):
        ContextSettings(compact_threshold_ratio=1.5).validated()
    with pytest.raises(InvalidInput, match="on or off"):
        ContextSettings(pruning_enabled="maybe").validated()  # type: ignore[arg-type]


def test_a_session_far_past_the_window_is_estimated_only_until_past_it_and_still_reads_as_over() -> None:
    world = make_world(window=8_000)
    chat(world, 500)  # about 130 tokens a message: 1,000 messages, some 130,000 tokens
    counting = CountingEstimator()
    world.planner.estimator = counting
    status = world.status("s1")
    assert status.window == 8_000 and status.used > 8_000 / 0.7
    assert counting.messages_asked < 150  # the newest messages past the window, not all 1,000
    assert "larger than" in " ".join(status.warnings)


def test_a_session_within_the_window_is_estimated_message_by_message_as_before() -> None:
    world = make_world(window=200_000)
    chat(world, 20)
    status = world.status("s1")
    ctx = world.contexts.load("s1")
    exact = measure_context(TokenEstimator(), system_prompt=ctx.system_prompt, summary=ctx.summary,
                            messages=ctx.messages, tools=ctx.tools)
    assert status.used == exact.used and status.breakdown == exact.breakdown


def test_a_status_read_far_past_the_window_reads_only_the_newest_messages_and_counts_the_rest_by_length() -> None:
    world = make_world(window=8_000)
    chat(world, 500)
    full = world.contexts.load("s1", strict=False)
    tail = world.contexts.load_to_measure("s1")
    assert len(full.messages) == 1_000 and full.unloaded_tokens == 0
    assert 0 < len(tail.messages) < 150 and tail.messages == full.messages[-len(tail.messages):]
    older = full.messages[:-len(tail.messages)]
    assert tail.unloaded_tokens == sum(4 + (len(m.content) + 3) // 4 for m in older)
    status = world.status("s1")
    assert status.used > 8_000 / 0.7 and status.used >= tail.unloaded_tokens
    assert status.breakdown.messages > tail.unloaded_tokens * 0.9
