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
