"""Anthropic echo rules through AsyncAnthropic and the fake server (which enforces the real API's 400s): a thinking
tool loop sends its own signed blocks back first, unchanged; another model's never go; older turns' never go; a
signature the API refuses becomes ReasoningRejected."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import anthropic
import pytest

from domain.errors import ReasoningRejected
from domain.events import ReasoningDone, StreamEvent, TextDelta, ToolCallRequested
from domain.models import ProviderType, ReasoningBlock, ReasoningKind
from domain.provider_ports import ModelApiAdapter
from tests.fakeservers import FakeAnthropicServer, Reply, ScriptedBrain, ToolCall
from tests.fakeservers.anthropic_rules import model_info, sign
from tests.providers.helpers import KEY, WEATHER, History, adapter_for, collect

ANTHROPIC = ProviderType.ANTHROPIC
SONNET, OPUS, ADAPTIVE = "claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101", "claude-sonnet-4-6"
MODELS = [model_info(SONNET), model_info(OPUS),
          model_info(ADAPTIVE, thinking="adaptive", efforts=("low", "medium", "high", "max"))]


def _call(call_id: str) -> Reply:
    return Reply(thinking=(f"think {call_id}",), tool_calls=(ToolCall("get_weather", {"city": "Oslo"}, id=call_id),))


async def _round(adapter: ModelApiAdapter, history: History, model: str, level: str = "high") -> list[StreamEvent]:
    """One round; the reply (its reasoning, its tool calls and their results) is appended to the history."""
    events = await collect(adapter.send_message_stream(
        model_id=model, system_prompt="Be brief.", messages=history.messages, tools=(WEATHER,),
        max_output_tokens=512, reasoning=level))
    blocks = tuple(e.block for e in events if isinstance(e, ReasoningDone))
    history.ai("".join(e.text for e in events if isinstance(e, TextDelta)))
    history.messages[-1] = replace(history.messages[-1], reasoning=blocks)
    for event in events:
        if isinstance(event, ToolCallRequested):
            history.call(event.id, event.name, dict(event.input))
            history.result(event.id, event.name, "12 C")
    return events


def _thinking(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in message["content"] if b["type"] in ("thinking", "redacted_thinking")]


async def test_a_thinking_tool_loop_sends_each_loop_turns_own_blocks_back_first_and_older_turns_none() -> None:
    brain = ScriptedBrain([_call("toolu_1"), replace(_call("toolu_2"), redacted=1), "Sunny", "You're welcome"])
    with FakeAnthropicServer(brain, models=MODELS) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        history = History().user("Weather in Oslo?")
        await _round(adapter, history, SONNET)
        await _round(adapter, history, SONNET)
        await _round(adapter, history, SONNET)
        history.user("thanks")
        await _round(adapter, history, SONNET)
    second, third, fourth = (r.raw for r in fake.requests[1:])
    first_blocks = history.messages[1].reasoning
    assert second["messages"][1]["content"][0] == {
        "type": "thinking", "thinking": "think toolu_1", "signature": first_blocks[0].signature}
    assert second["thinking"]["type"] == "enabled"
    assert [b["type"] for b in third["messages"][1]["content"]] == ["thinking", "tool_use"]
    assert [b["type"] for b in third["messages"][3]["content"]] == ["thinking", "redacted_thinking", "tool_use"]
    assert third["messages"][3]["content"][1]["data"] == history.messages[4].reasoning[1].data
    assert not [b for m in fourth["messages"] if m["role"] == "assistant" for b in _thinking(m)]  # older turns: none


async def test_another_models_blocks_are_never_sent_and_the_loop_it_started_stays_without_thinking() -> None:
    brain = ScriptedBrain([_call("toolu_1"), _call("toolu_2"), "Sunny"])
    with FakeAnthropicServer(brain, models=MODELS) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        history = History().user("Weather in Oslo?")
        await _round(adapter, history, OPUS)  # Opus thinks and calls a tool; then the user switches to Sonnet
        await _round(adapter, history, SONNET)
        await _round(adapter, history, SONNET)
    switched, after = fake.requests[1].raw, fake.requests[2].raw
    assert not _thinking(switched["messages"][1]) and "thinking" not in switched  # the fake would 400 either way
    assert not _thinking(after["messages"][1])  # Opus's block: still never sent to Sonnet
    assert "thinking" not in after and not _thinking(after["messages"][3])  # never switched on inside the loop


async def test_an_adaptive_model_continuing_another_models_loop_has_thinking_disabled_for_that_round() -> None:
    with FakeAnthropicServer(ScriptedBrain([_call("toolu_1"), "Sunny"]), models=MODELS) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        history = History().user("Weather in Oslo?")
        await _round(adapter, history, OPUS)
        await _round(adapter, history, ADAPTIVE)
    raw = fake.requests[1].raw
    assert raw["thinking"] == {"type": "disabled"} and not _thinking(raw["messages"][1])


@pytest.mark.parametrize("tamper", ["text", "model"])
async def test_a_block_the_api_no_longer_accepts_is_raised_as_reasoning_rejected(tamper: str) -> None:
    with FakeAnthropicServer(ScriptedBrain([_call("toolu_1"), "never"]), models=MODELS) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        history = History().user("Weather in Oslo?")
        await _round(adapter, history, SONNET)
        block = history.messages[1].reasoning[0]
        altered = (replace(block, text=block.text + " (edited)") if tamper == "text"
                   else replace(block, signature=sign(OPUS, block.text)))  # e.g. written under another key
        history.messages[1] = replace(history.messages[1], reasoning=(altered,))
        with pytest.raises(ReasoningRejected, match="Invalid signature in thinking block"):
            await _round(adapter, history, SONNET)
        # the turn's recovery: the same messages without reasoning blocks, which then must not ask for thinking
        history.messages[:] = [replace(m, reasoning=()) for m in history.messages]
        assert await _round(adapter, history, SONNET)
    assert "thinking" not in fake.log[-1].json()


async def test_a_thinking_block_without_its_signature_is_never_sent() -> None:
    with FakeAnthropicServer(ScriptedBrain(["ok"]), models=MODELS) as fake:
        history = History().user("q").ai().call("toolu_1", "get_weather", {"city": "Oslo"})
        history.messages[1] = replace(history.messages[1], reasoning=(
            ReasoningBlock(ReasoningKind.THINKING, "cut off", None, provider_id="anthropic", model_id=SONNET),))
        history.result("toolu_1", "get_weather", "12 C")
        await _round(adapter_for(ANTHROPIC, fake.base_url), history, SONNET)
    raw = fake.requests[-1].raw
    assert not _thinking(raw["messages"][1]) and "thinking" not in raw


def _loop(assistant: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "Weather?"}, {"role": "assistant", "content": assistant},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "12 C"}]}]


TOOL_USE = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}}


def _create(fake: FakeAnthropicServer, messages: list[dict[str, Any]]) -> None:
    client = anthropic.Anthropic(api_key=KEY, base_url=fake.base_url, max_retries=0)
    client.messages.create(model=SONNET, max_tokens=4096, messages=messages,  # type: ignore[arg-type]
                           thinking={"type": "enabled", "budget_tokens": 2048},
                           tools=[{"name": "get_weather", "input_schema": {"type": "object"}}])


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_fake_refuses_a_thinking_tool_loop_whose_last_turn_lacks_its_thinking() -> None:
    with FakeAnthropicServer(ScriptedBrain(["ok"]), models=MODELS) as fake, pytest.raises(
        anthropic.BadRequestError, match=r"messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, "
                                         r"but found `tool_use`\. When `thinking` is enabled"):
        _create(fake, _loop([TOOL_USE]))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_fake_refuses_a_signature_made_for_another_model() -> None:
    block = {"type": "thinking", "thinking": "plan", "signature": sign(OPUS, "plan")}
    with FakeAnthropicServer(ScriptedBrain(["ok"]), models=MODELS) as fake, pytest.raises(
        anthropic.BadRequestError, match=r"messages\.1\.content\.0: Invalid signature in thinking block"):
        _create(fake, _loop([block, TOOL_USE]))
    with FakeAnthropicServer(ScriptedBrain(["ok"]), models=MODELS) as fake:
        _create(fake, _loop([{**block, "signature": sign(SONNET, "plan")}, TOOL_USE]))  # its own: accepted
