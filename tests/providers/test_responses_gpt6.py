"""The GPT-6 models on the Responses API: the app sends each reasoning level as an effort the model takes (none for
off, max for max on gpt-6.1-terra and gpt-6-luna; a Sol model, which rejects none, gets low for off), and the fake
server refuses the efforts the real API refuses for each model, with its 400 body."""

from __future__ import annotations

import pytest

from data.providers.responses_shape import effort_for
from data.registry import load_registry
from domain.events import ReasoningDone, StreamDone, TextDelta, ThinkingDelta, ToolCallRequested
from domain.models import ModelCapabilities
from tests.fakeservers import Reply, ScriptedBrain, ToolCall
from tests.fakeservers.responses_server import FakeResponsesServer
from tests.providers.helpers import History, collect
from tests.providers.test_responses import post, responses_adapter, send, with_reasoning

REGISTRY = load_registry()


def caps(model: str) -> ModelCapabilities:
    found = REGISTRY.capabilities(model, "openai")
    assert found is not None
    return found


@pytest.mark.parametrize(("model", "level", "effort"), [
    ("gpt-6.1-terra", "off", "none"), ("gpt-6.1-terra", "low", "low"), ("gpt-6.1-terra", "max", "max"),
    ("gpt-6-luna", "off", "none"), ("gpt-6-luna", "max", "max"), ("gpt-6-luna", "medium", "medium"),
    ("gpt-6.1-sol", "off", "low"), ("gpt-6.1-sol", "max", "max"),  # a preset since 2026-11-28 (no none)
    ("gpt-5-mini", "max", "high"), ("gpt-5-mini", "off", "minimal"),
])
async def test_each_level_is_an_effort_the_model_takes(model: str, level: str, effort: str) -> None:
    with FakeResponsesServer(ScriptedBrain([Reply(thinking=("Hm.",), text_chunks=("Fine.",))])) as fake:
        events = await collect(send(responses_adapter(fake.base_url), History().user("hi").messages, model=model,
                                    caps=caps(model), reasoning=level))
    assert fake.refusals == []
    assert fake.requests[-1].raw["reasoning"] == {"summary": "auto", "effort": effort}
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Fine."


async def test_off_is_an_effort_of_none_and_the_reply_comes_without_reasoning() -> None:
    terra = caps("gpt-6.1-terra")
    assert "off" in terra.reasoning_levels()  # the picker offers it for this model
    brain = ScriptedBrain([Reply(thinking=("Hm.",), text_chunks=("Quick.",)),
                           Reply(thinking=("Hm.",), text_chunks=("Slow.",))])
    with FakeResponsesServer(brain) as fake:
        adapter = responses_adapter(fake.base_url)
        off = await collect(send(adapter, History().user("hi").messages, model="gpt-6.1-terra", caps=terra,
                                 reasoning="off"))
        low = await collect(send(adapter, History().user("hi").messages, model="gpt-6.1-terra", caps=terra,
                                 reasoning="low"))
    assert not any(isinstance(e, (ThinkingDelta, ReasoningDone)) for e in off)
    assert any(isinstance(e, ReasoningDone) for e in low)


async def test_auto_sends_no_effort_so_the_model_uses_its_default() -> None:
    with FakeResponsesServer(ScriptedBrain(["Fine."])) as fake:
        await collect(send(responses_adapter(fake.base_url), History().user("hi").messages, model="gpt-6.1-terra",
                           caps=caps("gpt-6.1-terra"), reasoning="auto"))
    assert fake.refusals == [] and fake.requests[-1].raw["reasoning"] == {"summary": "auto"}


def test_max_is_the_top_effort_where_the_model_takes_it() -> None:
    assert effort_for(caps("gpt-6.1-terra"), "max") == "max"
    assert effort_for(caps("gpt-5"), "max") == "high"


@pytest.mark.parametrize(("model", "effort", "listed"), [
    ("gpt-6.1-terra", "minimal", "'none', 'low', 'medium', 'high', 'xhigh', and 'max'"),
    ("gpt-6.1-sol", "none", "'low', 'medium', 'high', 'xhigh', and 'max'"),
    ("gpt-5-mini", "max", "'minimal', 'low', 'medium', and 'high'"),
])
def test_the_fake_refuses_an_effort_the_model_does_not_take(model: str, effort: str, listed: str) -> None:
    with FakeResponsesServer(ScriptedBrain(default=Reply.of_text("x"))) as fake:
        status, body = post(fake.base_url, {"model": model, "input": "hi", "reasoning": {"effort": effort}})
    assert status == 400 and body["error"]["param"] == "reasoning.effort"
    assert body["error"]["code"] == "unsupported_value"
    assert body["error"]["message"] == f"Invalid value: '{effort}'. Supported values are: {listed}."


async def test_a_tool_loop_at_max_effort_goes_back_with_its_reasoning() -> None:
    call = ToolCall("get_weather", {"city": "Oslo"}, id="call_6")
    brain = ScriptedBrain([Reply(thinking=("Need weather.",), tool_calls=(call,)),
                           Reply(thinking=("Got it.",), text_chunks=("Sunny.",))])
    terra = caps("gpt-6.1-terra")
    with FakeResponsesServer(brain) as fake:
        adapter = responses_adapter(fake.base_url)
        history = History().user("weather in Oslo?")
        first = await collect(send(adapter, history.messages, model="gpt-6.1-terra", caps=terra, reasoning="max"))
        assert [e.id for e in first if isinstance(e, ToolCallRequested)] == ["call_6"]
        history.ai("").call("call_6", "get_weather", {"city": "Oslo"}).result("call_6", "get_weather", "sunny")
        with_reasoning(history, 1, first)
        second = await collect(send(adapter, history.messages, model="gpt-6.1-terra", caps=terra, reasoning="max"))
    assert fake.refusals == [] and second[-1] == StreamDone("end_turn")
    kinds = [item.get("type", item.get("role")) for item in fake.requests[1].raw["input"]]
    assert kinds == ["user", "reasoning", "function_call", "function_call_output"]
    assert all(r.raw["reasoning"]["effort"] == "max" for r in fake.requests)


def test_sol_is_a_preset_whose_picker_has_no_off_and_gpt5s_successor() -> None:
    sol = caps("gpt-6.1-sol")
    assert sol.efforts == ("low", "medium", "high", "xhigh", "max")  # the API rejects none for 6.1 Sol
    assert "off" not in sol.reasoning_levels() and "max" in sol.reasoning_levels()
    preset = next(m for m in REGISTRY.for_provider("openai") if m.id == "gpt-6.1-sol")
    assert (preset.context_window, preset.input_limit, preset.max_output_tokens) == (1_050_000, 922_000, 128_000)
    gpt5 = REGISTRY.retirement("gpt-5", "openai")
    assert gpt5 is not None and gpt5.successor == "gpt-6.1-sol"
