"""Interleaved thinking on the Messages API through AsyncAnthropic and the fake (which behaves like the API: without
the interleaved-thinking beta a budget model writes no thinking after tool results; with it, it thinks at every
step, and budget_tokens may pass max_tokens): a budget Claude 4 model's tool loop thinks at every step under one
thinking setting; Claude 3.7 Sonnet never gets the beta."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import anthropic
import pytest

from domain.events import ReasoningDone, StreamEvent, TextDelta, ToolCallRequested
from domain.models import ProviderType
from domain.provider_ports import ModelApiAdapter
from tests.fakeservers import FakeAnthropicServer, Reply, ScriptedBrain, ToolCall
from tests.fakeservers.anthropic_rules import model_info, sign
from tests.providers.helpers import KEY, WEATHER, History, adapter_for, collect

ANTHROPIC = ProviderType.ANTHROPIC
SONNET, SONNET_37 = "claude-sonnet-4-5-20250929", "claude-3-7-sonnet-20250219"
BETA = "interleaved-thinking-2025-05-14"
MODELS = [model_info(SONNET), model_info(SONNET_37, max_tokens=64_000)]
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _call(call_id: str) -> Reply:
    return Reply(thinking=(f"think {call_id}",), tool_calls=(ToolCall("get_weather", {"city": "Oslo"}, id=call_id),))


async def _round(adapter: ModelApiAdapter, history: History, model: str) -> list[StreamEvent]:
    events = await collect(adapter.send_message_stream(
        model_id=model, system_prompt="Be brief.", messages=history.messages, tools=(WEATHER,),
        max_output_tokens=512, reasoning="high"))
    history.ai("".join(e.text for e in events if isinstance(e, TextDelta)))
    history.messages[-1] = replace(history.messages[-1],
                                   reasoning=tuple(e.block for e in events if isinstance(e, ReasoningDone)))
    for event in events:
        if isinstance(event, ToolCallRequested):
            history.call(event.id, event.name, dict(event.input)).result(event.id, event.name, "12 C")
    return events


def _thought(events: list[StreamEvent]) -> bool:
    return any(isinstance(e, ReasoningDone) for e in events)


async def test_a_budget_models_tool_loop_thinks_at_every_step_under_one_thinking_setting() -> None:
    brain = ScriptedBrain([_call("toolu_1"), _call("toolu_2"), Reply(thinking=("done",), text_chunks=("Sunny",))])
    with FakeAnthropicServer(brain, models=MODELS) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        history = History().user("Weather in Oslo?")
        rounds = [await _round(adapter, history, SONNET) for _ in range(3)]
    assert all(_thought(events) for events in rounds)  # the model thought after each tool result too
    requests = fake.requests
    assert all(r.headers.get("anthropic-beta") == BETA for r in requests)
    assert [r.raw["thinking"] for r in requests] == [{"type": "enabled", "budget_tokens": 16_384}] * 3
    assert len({r.raw["max_tokens"] for r in requests}) == 1
    last = [m for m in requests[2].raw["messages"] if m["role"] == "assistant"]
    assert [m["content"][0]["signature"] for m in last] == [sign(SONNET, f"think toolu_{n}") for n in (1, 2)]


async def test_claude_3_7_sonnet_never_gets_the_interleaved_beta() -> None:
    with FakeAnthropicServer(ScriptedBrain([_call("toolu_1"), "Sunny"]), models=MODELS) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        history = History().user("Weather in Oslo?")
        await _round(adapter, history, SONNET_37)
    assert "anthropic-beta" not in fake.requests[0].headers
    assert fake.requests[0].raw["thinking"]["type"] == "enabled"


async def test_under_the_beta_the_turns_budget_stays_whole_where_the_output_limit_cuts_max_tokens() -> None:
    with FakeAnthropicServer(ScriptedBrain(["ok"]), models=[model_info(SONNET, max_tokens=40_000)]) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        await adapter.list_models()  # the model's output limit: 40,000
        await collect(adapter.send_message_stream(
            model_id=SONNET, system_prompt=None, messages=History().user("hi").messages, tools=(WEATHER,),
            max_output_tokens=30_000, reasoning="max"))
    raw = fake.requests[0].raw
    assert raw["max_tokens"] == 40_000 and raw["thinking"]["budget_tokens"] == 32_000  # not cut to 20,000


def _continue(fake: FakeAnthropicServer, *, beta: bool, budget: int = 2048, max_tokens: int = 4096) -> Any:
    client = anthropic.Anthropic(api_key=KEY, base_url=fake.base_url, max_retries=0)
    block = {"type": "thinking", "thinking": "plan", "signature": sign(SONNET, "plan")}
    messages = [{"role": "user", "content": "Weather?"},
                {"role": "assistant", "content": [block, {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                                                          "input": {"city": "Oslo"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "12 C"}]}]
    return client.messages.create(
        model=SONNET, max_tokens=max_tokens, messages=messages,  # type: ignore[arg-type]
        thinking={"type": "enabled", "budget_tokens": budget},
        tools=[{"name": "get_weather", "input_schema": {"type": "object"}}],
        extra_headers={"anthropic-beta": BETA} if beta else None)


def test_the_fake_budget_model_thinks_after_tool_results_only_under_the_beta() -> None:
    reply = Reply(thinking=("It is mild.",), text_chunks=("12 C.",))
    with FakeAnthropicServer(ScriptedBrain([reply, reply]), models=MODELS) as fake:
        plain = _continue(fake, beta=False)
        interleaved = _continue(fake, beta=True)
    assert [b.type for b in plain.content] == ["text"]
    assert [b.type for b in interleaved.content] == ["thinking", "text"]


def test_the_fake_takes_a_budget_above_max_tokens_only_under_the_beta() -> None:
    with FakeAnthropicServer(ScriptedBrain(["ok", "ok"]), models=MODELS) as fake:
        assert _continue(fake, beta=True, budget=8192, max_tokens=4096).content
        with pytest.raises(anthropic.BadRequestError, match=r"`max_tokens` must be greater than"):
            _continue(fake, beta=False, budget=8192, max_tokens=4096)
