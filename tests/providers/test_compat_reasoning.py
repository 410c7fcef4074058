"""OpenAI-compatible reasoning through AsyncOpenAI against the fake: reasoning_content (DeepSeek, vLLM, llama.cpp) and
reasoning (OpenRouter) streamed as thinking and kept as a block, sent back on tool-call turns to the model that wrote
it only, each server's reasoning knob (nothing for auto), and the fake's DeepSeek rule."""

from __future__ import annotations

import openai
import pytest

from data.providers.compat_reasoning import Server, server_for
from data.providers.openai_adapter import OpenAIAdapter
from data.providers.retry import RetryPolicy
from domain.events import ReasoningDone, StreamDone, ThinkingDelta, UsageReported
from domain.models import ProviderType, ReasoningKind
from tests.fakeservers import FakeOpenAIServer, Reply, ScriptedBrain, ToolCall
from tests.providers.helpers import History, adapter_for
from tests.providers.reasoning_helpers import answer_calls, record_round, send

COMPATIBLE = ProviderType.OPENAI_COMPATIBLE
CALL = Reply(thinking=("The user wants ", "Lima's weather."), tool_calls=(ToolCall("get_weather", {"city": "Lima"}),))
DEEPSEEK_MESSAGE = ("Missing `reasoning_content` field in the assistant message at message index 2. For more "
                    "information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls")


def adapter_on(fake: FakeOpenAIServer, server: Server, provider_id: str = "ds") -> OpenAIAdapter:
    """An adapter for a server kind the base URL of a local fake cannot name."""
    client = openai.AsyncOpenAI(api_key="k", base_url=fake.base_url, max_retries=0)
    return OpenAIAdapter(client, provider_id=provider_id, provider_name="Compat", retry=RetryPolicy(max_retries=0),
                         compatible=server is not Server.OPENAI, server=server)


def assistant_turns(raw: dict) -> list[dict]:
    """The assistant messages of a request body."""
    return [m for m in raw["messages"] if m["role"] == "assistant"]


async def test_reasoning_content_is_kept_and_sent_back_on_its_tool_call_turn_as_deepseek_requires():
    with FakeOpenAIServer(ScriptedBrain([CALL, "Warm."]), deepseek=True) as fake:
        adapter = adapter_for(COMPATIBLE, fake.base_url)
        history = History().user("Weather in Lima?")
        first = await send(adapter, history, "deepseek-v4-flash")
        answer_calls(record_round(history, first, COMPATIBLE.value, "deepseek-v4-flash"), first)
        second = await send(adapter, history, "deepseek-v4-flash")
    assert [e.text for e in first if isinstance(e, ThinkingDelta)] == ["The user wants ", "Lima's weather."]
    blocks = [e.block for e in first if isinstance(e, ReasoningDone)]
    assert [(b.kind, b.text, b.provider_id, b.model_id) for b in blocks] == [
        (ReasoningKind.REASONING_CONTENT, "The user wants Lima's weather.", COMPATIBLE.value, "deepseek-v4-flash")]
    assert second[-1] == StreamDone("end_turn")
    assert assistant_turns(fake.requests[-1].raw)[0]["reasoning_content"] == "The user wants Lima's weather."


async def test_another_models_reasoning_content_is_never_sent_its_tool_call_turn_gets_an_empty_one():
    with FakeOpenAIServer(ScriptedBrain([CALL, "Warm.", "Still warm."]), deepseek=True) as fake:
        adapter = adapter_for(COMPATIBLE, fake.base_url)
        history = History().user("Weather in Lima?")
        first = await send(adapter, history, "deepseek-v4-pro")
        answer_calls(record_round(history, first, COMPATIBLE.value, "deepseek-v4-pro"), first)
        other_model = await send(adapter, history, "deepseek-v4-flash")
        other_provider = await send(adapter_on(fake, Server.COMPATIBLE, "vllm"), history, "deepseek-v4-pro")
    assert other_model[-1] == other_provider[-1] == StreamDone("end_turn")
    for request in fake.requests[-2:]:
        assert assistant_turns(request.raw)[0]["reasoning_content"] == ""
    assert "Lima's weather" not in fake.log[-1].body.decode() and "Lima's weather" not in fake.log[-2].body.decode()


async def test_a_text_only_turns_reasoning_is_not_sent_back():
    with FakeOpenAIServer(ScriptedBrain([Reply(thinking=("hm",), text_chunks=("Hi.",)), "Again."])) as fake:
        adapter = adapter_for(COMPATIBLE, fake.base_url)
        history = History().user("hi")
        first = await send(adapter, history, "qwen3-8b")
        record_round(history, first, COMPATIBLE.value, "qwen3-8b").user("again")
        await send(adapter, history, "qwen3-8b")
    assert assistant_turns(fake.requests[-1].raw) == [{"role": "assistant", "content": "Hi."}]


async def test_openrouters_reasoning_field_streams_as_thinking_and_goes_back_in_the_same_field():
    with FakeOpenAIServer(ScriptedBrain([CALL, "Warm."]), reasoning_field="reasoning") as fake:
        adapter = adapter_on(fake, Server.OPENROUTER, "openrouter")
        history = History().user("Weather in Lima?")
        first = await send(adapter, history, "deepseek/deepseek-r1", "max")
        answer_calls(record_round(history, first, "openrouter", "deepseek/deepseek-r1"), first)
        await send(adapter, history, "deepseek/deepseek-r1", "max")
    assert "".join(e.text for e in first if isinstance(e, ThinkingDelta)) == "The user wants Lima's weather."
    sent = fake.requests[-1].raw
    assert assistant_turns(sent)[0]["reasoning"] == "The user wants Lima's weather."
    assert "reasoning_content" not in assistant_turns(sent)[0]
    assert sent["reasoning"] == {"effort": "xhigh"} and "reasoning_effort" not in sent


@pytest.mark.parametrize(("server", "model", "level", "expected"), [
    (Server.DEEPSEEK, "deepseek-v4-pro", "high", {"reasoning_effort": "high", "thinking": {"type": "enabled"}}),
    (Server.DEEPSEEK, "deepseek-v4-pro", "max", {"reasoning_effort": "max", "thinking": {"type": "enabled"}}),
    (Server.DEEPSEEK, "deepseek-v4-pro", "off", {"thinking": {"type": "disabled"}}),
    (Server.DEEPSEEK, "deepseek-v4-pro", "auto", {}),
    (Server.OPENROUTER, "qwen/qwen3-235b", "off", {"reasoning": {"effort": "none"}}),
    (Server.OPENROUTER, "qwen/qwen3-235b", "low", {"reasoning": {"effort": "low"}}),
    (Server.COMPATIBLE, "gpt-oss-20b", "medium", {"reasoning_effort": "medium"}),
    (Server.COMPATIBLE, "gpt-oss-20b", "max", {"reasoning_effort": "high"}),
    (Server.COMPATIBLE, "qwen3-8b", "high", {}),  # no known knob: nothing the server could refuse
    (Server.OPENAI, "gpt-5", "high", {}),  # OpenAI's own endpoint: unchanged (its reasoning is the Responses API's)
])
async def test_the_reasoning_level_maps_to_each_servers_own_knob(server, model, level, expected):
    with FakeOpenAIServer(ScriptedBrain(["ok"])) as fake:
        await send(adapter_on(fake, server), History().user("hi"), model, level)
    raw = fake.requests[-1].raw
    assert {k: raw[k] for k in ("reasoning_effort", "thinking", "reasoning") if k in raw} == expected


async def test_deepseek_with_thinking_off_neither_thinks_nor_needs_reasoning_content_back():
    history = History().user("q").ai().call("a", "get_weather", {"city": "X"}).result("a", "get_weather", "1")
    with FakeOpenAIServer(ScriptedBrain([Reply(thinking=("hm",), text_chunks=("ok",))]), deepseek=True) as fake:
        events = await send(adapter_on(fake, Server.DEEPSEEK), history, "deepseek-v4-pro", "off")
    assert not [e for e in events if isinstance(e, ThinkingDelta | ReasoningDone)]
    assert events[-1] == StreamDone("end_turn")


async def test_openais_own_endpoint_never_gets_reasoning_content_back():
    history = History().user("Weather in Lima?")
    with FakeOpenAIServer(ScriptedBrain([CALL, "Warm."])) as fake:
        adapter = adapter_for(ProviderType.OPENAI, fake.base_url)
        first = await send(adapter, history, "gpt-test-1", "high")
        answer_calls(record_round(history, first, ProviderType.OPENAI.value, "gpt-test-1"), first)
        await send(adapter, history, "gpt-test-1", "high")
    sent = fake.requests[-1].raw
    assert set(assistant_turns(sent)[0]) == {"role", "content", "tool_calls"} and "reasoning_effort" not in sent


async def test_reasoning_tokens_are_reported_apart():
    with FakeOpenAIServer(ScriptedBrain([Reply(thinking=("a long think " * 20,), text_chunks=("ok",))])) as fake:
        events = await send(adapter_for(COMPATIBLE, fake.base_url), History().user("hi"), "m")
    usage = next(e.usage for e in events if isinstance(e, UsageReported))
    assert 0 < usage.reasoning_tokens < usage.output_tokens


def test_the_server_kind_comes_from_the_base_url():
    assert server_for("https://openrouter.ai/api/v1", compatible=False) is Server.OPENROUTER
    assert server_for("https://api.deepseek.com/v1", compatible=True) is Server.DEEPSEEK
    assert server_for("http://localhost:8000/v1", compatible=True) is Server.COMPATIBLE
    assert server_for("https://api.openai.com/v1", compatible=False) is Server.OPENAI


# --- the fake enforces DeepSeek's rule (through the SDK itself, no adapter) -------------------------------------------

async def test_the_fake_refuses_a_thinking_tool_call_turn_without_reasoning_content_with_deepseeks_message():
    messages = [
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "warm"},
    ]
    with FakeOpenAIServer(ScriptedBrain(["ok", "ok"]), deepseek=True) as fake:
        client = openai.AsyncOpenAI(api_key="k", base_url=fake.base_url, max_retries=0)
        with pytest.raises(openai.BadRequestError) as refused:
            await client.chat.completions.create(model="deepseek-v4-pro", messages=messages)  # type: ignore[arg-type]
        off = await client.chat.completions.create(model="deepseek-v4-pro", messages=messages,  # type: ignore[arg-type]
                                                   extra_body={"thinking": {"type": "disabled"}})
        messages[2]["reasoning_content"] = ""
        echoed = await client.chat.completions.create(model="deepseek-v4-pro", messages=messages)  # type: ignore
    assert refused.value.status_code == 400
    assert refused.value.body == {"message": DEEPSEEK_MESSAGE, "type": "invalid_request_error", "param": None,
                                  "code": "invalid_request_error"}
    assert off.choices[0].message.content == echoed.choices[0].message.content == "ok"
