"""Reasoning blocks a provider streams are stored with the reply (and a tool call's with that call), in order."""

from __future__ import annotations

from domain.events import ReasoningDone, StreamDone, TextDelta, ThinkingDelta, ToolCallRequested, UsageReported
from domain.models import MessageType, ReasoningBlock, ReasoningKind, Usage
from domain.settings import ContextSettings
from domain.usecases.export_session import message_to_dict
from domain.usecases.show_session import MessageView
from tests.fakes_turn import make_world, reply

THOUGHT = ReasoningBlock(ReasoningKind.THINKING, "Check the tide first.", signature="sig-1", provider_id="anthropic",
                         model_id="claude-big")
HIDDEN = ReasoningBlock(ReasoningKind.REDACTED, data="opaque==", provider_id="anthropic", model_id="claude-big")
PART = ReasoningBlock(ReasoningKind.SIGNATURE, signature="part-sig", provider_id="anthropic", model_id="claude-big")


async def test_blocks_are_stored_in_order_on_the_reply_and_a_calls_own_on_that_call() -> None:
    world = make_world(handlers={"tide": lambda args, ctx: "high at 14:05"})
    world.adapter().scripts.extend([
        [ThinkingDelta("Check the tide first."), ReasoningDone(THOUGHT), ReasoningDone(HIDDEN),
         ToolCallRequested("c1", "tide", {}), ReasoningDone(PART, call_id="c1"),
         UsageReported(Usage(100, 20)), StreamDone("tool_use")],
        reply("High tide is at 14:05."),
    ])
    await world.turn("When is high tide?")
    stored = world.stored()
    first_reply = next(m for m in stored if m.type is MessageType.AI_RESPONSE)
    call = next(m for m in stored if m.type is MessageType.TOOL_CALL)
    assert first_reply.reasoning == (THOUGHT, HIDDEN) and first_reply.thinking_content == "Check the tide first."
    assert call.reasoning == (PART,)
    shown = message_to_dict(MessageView(first_reply, False))["reasoning"]
    assert shown == [
        {"kind": "thinking", "text": "Check the tide first.", "signed": True, "provider_id": "anthropic",
         "model_id": "claude-big"},
        {"kind": "redacted_thinking", "text": "", "signed": True, "provider_id": "anthropic", "model_id": "claude-big"},
    ]
    assert "sig-1" not in str(shown) and "opaque" not in str(shown)


async def test_the_reasoning_level_of_the_settings_reaches_the_adapter() -> None:
    world = make_world(settings=ContextSettings(reasoning="high"))
    world.adapter().scripts.append([TextDelta("ok"), StreamDone("end_turn")])
    await world.turn("think hard")
    assert world.adapter().requests[0].reasoning == "high"


def test_an_unknown_reasoning_level_is_refused() -> None:
    import pytest

    from domain.errors import InvalidInput

    with pytest.raises(InvalidInput, match="Reasoning must be one of"):
        ContextSettings(reasoning="extreme").validated()


async def test_reasoning_the_provider_rejects_is_dropped_once_and_the_turn_goes_on() -> None:
    from domain.errors import ReasoningRejected
    from domain.events import Notice

    world = make_world(handlers={"tide": lambda args, ctx: "high at 14:05"})
    world.adapter().scripts.extend([
        [ThinkingDelta("Check."), ReasoningDone(THOUGHT), ToolCallRequested("c1", "tide", {}), StreamDone("tool_use")],
        ReasoningRejected("Anthropic", "Invalid signature in thinking block"),
        reply("High tide is at 14:05."),
    ])
    events = await world.turn("When is high tide?")
    notices = [e for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and "sent again without it" in notices[0].message
    first, second = world.adapter().requests[1:]
    assert any(m.reasoning for m in first.messages) and not any(m.reasoning for m in second.messages)
    assert world.stored()[-1].content == "High tide is at 14:05."
    assert next(m for m in world.stored() if m.type is MessageType.AI_RESPONSE).reasoning == (THOUGHT,)  # kept


async def test_reasoning_rejected_twice_is_an_error_not_a_loop() -> None:
    from domain.errors import ReasoningRejected
    from domain.events import ChatError

    world = make_world()
    world.adapter().scripts.extend([ReasoningRejected("Anthropic"), ReasoningRejected("Anthropic")])
    events = await world.turn("hi")
    assert isinstance(events[-1], ChatError) and events[-1].kind == "reasoning_rejected"
    assert len(world.adapter().requests) == 2


async def test_reasoning_tokens_are_added_up_over_the_turns_rounds() -> None:
    from domain.events import ResponseComplete

    world = make_world(handlers={"tide": lambda args, ctx: "high"})
    world.adapter().scripts.extend([
        [ToolCallRequested("c1", "tide", {}), UsageReported(Usage(100, 40, reasoning_tokens=30)),
         StreamDone("tool_use")],
        [TextDelta("High."), UsageReported(Usage(120, 10)), UsageReported(Usage(120, 25, reasoning_tokens=12)),
         StreamDone("end_turn")],
    ])
    events = await world.turn("tide?")
    done = next(e for e in events if isinstance(e, ResponseComplete))
    assert done.usage.reasoning_tokens == 42 and done.usage.output_tokens == 65


async def test_the_models_capabilities_reach_the_adapter() -> None:
    from dataclasses import replace

    from domain.models import ModelCapabilities, ThinkingForm

    world = make_world()
    caps = ModelCapabilities(thinking=ThinkingForm.ADAPTIVE, efforts=("low", "high"))
    big = world.models.get("anthropic", "claude-big")
    world.models.upsert(replace(big, capabilities=caps))
    world.adapter().scripts.append(reply("ok"))
    await world.turn("hi")
    assert world.adapter().requests[0].capabilities == caps


async def test_a_reply_keeps_its_reasoning_tokens_and_how_long_the_model_thought() -> None:
    world = make_world()
    world.adapter().scripts.append([
        ThinkingDelta("Weigh it."), TextDelta("Done."), UsageReported(Usage(50, 30, reasoning_tokens=21)),
        StreamDone("end_turn"),
    ])
    await world.turn("Think, then answer")
    answer = next(m for m in world.stored() if m.type is MessageType.AI_RESPONSE)
    assert answer.reasoning_tokens == 21 and answer.thinking_ms is not None and answer.thinking_ms >= 0
    shown = message_to_dict(MessageView(answer, False))
    assert shown["reasoning_tokens"] == 21 and shown["thinking_ms"] == answer.thinking_ms


async def test_thinking_time_runs_from_the_first_reasoning_to_the_first_text_or_tool_call() -> None:
    from domain.chat.stream import RoundState, stream_round

    now = [100.0]

    async def events():  # the clock moves as the stream goes: 2.5 s of thinking, then 4 s of text
        yield ThinkingDelta("a")
        now[0] += 2.5
        yield ThinkingDelta("b")
        yield TextDelta("x")
        now[0] += 4.0
        yield TextDelta("y")

    state = RoundState(clock=lambda: now[0])
    assert state.thinking_ms is None
    async for _event in stream_round(events(), state):
        pass
    assert state.thinking_ms == 2_500 and state.thinking == "ab"
    plain = RoundState(clock=lambda: now[0])
    async for _event in stream_round(_only_text(), plain):
        pass
    assert plain.thinking_ms is None  # no reasoning: no thinking time


async def _only_text():
    yield TextDelta("hi")
