"""The estimator and the gauge count only the reasoning a request really sends back (the current tool loop's, of
the model it is sent to), and the reply's output room leaves space for the thinking the adapter adds."""

from __future__ import annotations

from dataclasses import replace

from domain.chat.request import RequestPlanner, output_budget
from domain.context.builder import CompactAwareMessageBuilder
from domain.context.reasoning_echo import echoed_reasoning
from domain.models import (
    AiModel,
    Message,
    MessageType,
    ModelCapabilities,
    Provider,
    ReasoningBlock,
    ReasoningKind,
    ThinkingForm,
)
from domain.settings import ContextSettings
from tests.fake_thinking_rules import ROOM, FakeThinkingRules
from tests.fakes_turn import make_world

THOUGHT = "Let me check the tide table before answering; the harbour closes at low water. " * 40


def _block(model: str = "claude-big", kind: ReasoningKind = ReasoningKind.THINKING) -> ReasoningBlock:
    return ReasoningBlock(kind, THOUGHT, signature="sig", provider_id="anthropic", model_id=model)


def _loop(world, *, closed: bool, model: str = "claude-big") -> None:
    """A user question, a reply that thought and called a tool, its result; `closed`: the user spoke again."""
    add = world.messages.add
    add(Message("u1", "s1", MessageType.USER, "When is high tide?"))
    add(Message("a1", "s1", MessageType.AI_RESPONSE, "", provider_id="anthropic", model_id=model,
                reasoning=(_block(model),), thinking_content=THOUGHT))
    add(Message("c1", "s1", MessageType.TOOL_CALL, tool_call_id="t1", tool_name="tide", tool_input="{}"))
    add(Message("r1", "s1", MessageType.TOOL_RESULT, tool_call_id="t1", tool_name="tide", tool_output="14:05"))
    if closed:
        add(Message("a2", "s1", MessageType.AI_RESPONSE, "High tide is at 14:05.", provider_id="anthropic",
                    model_id=model))
        add(Message("u2", "s1", MessageType.USER, "Thanks, and tomorrow?"))


def test_mid_tool_loop_the_models_own_thinking_is_counted_in_the_gauge_and_the_plan() -> None:
    world = make_world()
    _loop(world, closed=False)
    status = world.status("s1")
    assert status.breakdown.reasoning > 300  # the ~3,300 characters of thinking that go back
    ctx = world.contexts.load("s1")
    planned = world.planner.plan(ctx)
    without = world.planner.plan(ctx.without_reasoning())
    assert planned.raw_estimate - without.raw_estimate == status.breakdown.reasoning


def test_once_the_loop_is_over_or_for_another_model_no_reasoning_is_counted() -> None:
    over = make_world()
    _loop(over, closed=True)
    assert over.status("s1").breakdown.reasoning == 0  # the API strips a finished loop's thinking
    other = make_world()
    _loop(other, closed=False, model="claude-haiku")
    assert other.status("s1").breakdown.reasoning == 0  # claude-big never receives claude-haiku's blocks
    assert other.status("s1", model_id="claude-haiku").breakdown.reasoning > 300


def test_signatures_of_parts_are_not_counted_and_redacted_data_counts_at_its_decoded_size() -> None:
    result = Message("r", "s", MessageType.TOOL_RESULT, tool_call_id="t", tool_output="ok")
    signature = ReasoningBlock(ReasoningKind.SIGNATURE, signature="x" * 400, provider_id="p", model_id="m")
    redacted = ReasoningBlock(ReasoningKind.REDACTED, data="QUJD" * 100, provider_id="p", model_id="m")
    reply = Message("a", "s", MessageType.AI_RESPONSE, "", reasoning=(signature, redacted))
    assert echoed_reasoning([Message("u", "s", MessageType.USER, "q"), reply, result], "p", "m") == [redacted]
    world = make_world()
    from domain.context.reasoning_echo import reasoning_tokens

    assert reasoning_tokens(world.estimator, [redacted]) == 400 * 3 // 16


def test_the_reply_keeps_its_room_after_the_thinking_the_adapter_adds() -> None:
    budget_model = AiModel("claude-x", None, "anthropic", context_window_size=200_000, max_output_tokens=64_000,
                           capabilities=ModelCapabilities(ThinkingForm.BUDGET))
    high = ContextSettings(max_output_tokens=32_000, reasoning="high")
    reply = output_budget(budget_model, high, 180_000, ROOM["high"])
    assert reply == 200_000 - 180_000 - ROOM["high"]  # with the thinking on top: exactly the window
    assert output_budget(budget_model, replace(high, reasoning="off"), 180_000) == 20_000


class _FixedRoom(FakeThinkingRules):
    """5,000 tokens of thinking room for every model and level."""

    def thinking_room(self, provider: Provider | None, model: AiModel | None, level: str) -> int:
        self.asked.append(level)
        return 5_000


def test_the_planner_leaves_the_room_the_providers_rules_give_thinking() -> None:
    world = make_world(window=12_000, settings=ContextSettings(max_output_tokens=32_000, reasoning="high"))
    _loop(world, closed=False)
    rules = _FixedRoom()
    planner = RequestPlanner(CompactAwareMessageBuilder(), world.pruner, world.estimator, thinking=rules)
    planned = planner.plan(world.contexts.load("s1"))
    assert rules.asked == ["high"]
    assert planned.max_output_tokens == 12_000 - planned.estimate - 5_000  # below the model's 8,192


def test_a_responses_reasoning_item_kept_with_its_call_is_counted_while_its_loop_runs() -> None:
    item = ReasoningBlock(ReasoningKind.ENCRYPTED, data="gAAAA" + "x" * 4_000, item_id="rs_1", provider_id="openai",
                          model_id="gpt-5")
    messages = [Message("u1", "s1", MessageType.USER, "Tide?"),
                Message("a1", "s1", MessageType.AI_RESPONSE, "", provider_id="openai", model_id="gpt-5"),
                Message("c1", "s1", MessageType.TOOL_CALL, tool_call_id="t1", tool_name="tide", tool_input="{}",
                        reasoning=(item,)),
                Message("r1", "s1", MessageType.TOOL_RESULT, tool_call_id="t1", tool_name="tide", tool_output="14:05")]
    assert echoed_reasoning(messages, "openai", "gpt-5") == [item]
    assert echoed_reasoning(messages, "openai", "gpt-5-mini") == []
    assert echoed_reasoning([*messages, Message("u2", "s1", MessageType.USER, "And?")], "openai", "gpt-5") == []


def test_the_summarizer_never_receives_raw_thinking() -> None:
    from domain.context.transcript import render_transcript

    thought = Message("a", "s", MessageType.AI_RESPONSE, "High tide is at 14:05.", thinking_content="SECRET-THOUGHT",
                      reasoning=(replace(_block(), text="SECRET-THOUGHT"),
                                 ReasoningBlock(ReasoningKind.REDACTED, data="OPAQUE-DATA")))
    transcript = render_transcript([Message("u", "s", MessageType.USER, "When?"), thought])
    assert "High tide is at 14:05." in transcript
    assert "SECRET-THOUGHT" not in transcript and "OPAQUE-DATA" not in transcript


def test_an_api_that_takes_every_turns_reasoning_has_all_of_it_counted_and_only_the_models_own() -> None:
    def item(n: int, model: str = "gpt-small") -> ReasoningBlock:
        return ReasoningBlock(ReasoningKind.ENCRYPTED, "Summary.", data="gAAAA" + "x" * 1_600, item_id=f"rs_{n}",
                              provider_id="openai", model_id=model)

    messages = [Message("u1", "s1", MessageType.USER, "Tide?"),
                Message("c1", "s1", MessageType.TOOL_CALL, tool_call_id="t1", tool_name="tide", tool_input="{}",
                        reasoning=(item(1),)),
                Message("r1", "s1", MessageType.TOOL_RESULT, tool_call_id="t1", tool_name="tide", tool_output="14:05"),
                Message("a1", "s1", MessageType.AI_RESPONSE, "At 14:05.", reasoning=(item(2),)),
                Message("u2", "s1", MessageType.USER, "And tomorrow?"),
                Message("a2", "s1", MessageType.AI_RESPONSE, "At 14:50.", reasoning=(item(3, "gpt-other"),))]
    assert echoed_reasoning(messages, "openai", "gpt-small") == []  # the loop is over: an API that strips them
    assert echoed_reasoning(messages, "openai", "gpt-small", every_turn=True) == [item(1), item(2)]
    world = make_world(every_turn=("openai",))
    for message in messages:
        world.messages.add(message)
    counted = world.status("s1", provider_id="openai", model_id="gpt-small").breakdown.reasoning
    estimator = world.estimator
    assert counted == 2 * (estimator.estimate_text("Summary.") + estimator.estimate_opaque("gAAAA" + "x" * 1_600))


def test_a_reasoning_item_kept_without_its_encrypted_content_is_not_counted_as_sent_back() -> None:
    """The Responses adapter keeps the reasoning that produced a web_search_call for display only (no encrypted
    content): it never goes back, so it is not counted either."""
    shown = ReasoningBlock(ReasoningKind.ENCRYPTED, "Searching.", item_id="rs_1", provider_id="openai",
                           model_id="gpt-small")
    sent = ReasoningBlock(ReasoningKind.ENCRYPTED, "Answering.", data="gAAAA" + "x" * 64, item_id="rs_2",
                          provider_id="openai", model_id="gpt-small")
    messages = [Message("u1", "s1", MessageType.USER, "Tide?"),
                Message("a1", "s1", MessageType.AI_RESPONSE, "At 14:05.", reasoning=(shown, sent))]
    assert echoed_reasoning(messages, "openai", "gpt-small", every_turn=True) == [sent]
