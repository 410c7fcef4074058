"""OpenAI and OpenAI-compatible specifics via AsyncOpenAI: empty choices, token fields, reasoning, Ollama."""

from __future__ import annotations

import json
import urllib.request

from data.providers.ollama import context_length_from_show, server_root
from domain.events import StreamDone, TextDelta, ThinkingDelta, ToolCallRequested, UsageReported
from domain.models import ProviderType
from tests.fakeservers import FakeOpenAIServer, Reply, ScriptedBrain, ToolCall
from tests.fakeservers.ollama_server import FakeOllamaServer
from tests.providers.helpers import History, adapter_for, collect, stream

OPENAI = ProviderType.OPENAI
COMPATIBLE = ProviderType.OPENAI_COMPATIBLE


async def test_the_usage_chunk_with_empty_choices_is_read_as_usage():
    with FakeOpenAIServer(ScriptedBrain(["hello", "hello"])) as fake:
        body = json.dumps({"model": "m", "stream": True, "stream_options": {"include_usage": True},
                           "messages": [{"role": "user", "content": "hi"}]}).encode()
        request = urllib.request.Request(fake.base_url + "/chat/completions", data=body, method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as response:
            assert b'"choices": []' in response.read()
        events = await collect(stream(adapter_for(OPENAI, fake.base_url), History().user("hi")))
    usage = [e.usage for e in events if isinstance(e, UsageReported)]
    assert len(usage) == 1 and usage[0].input_tokens == fake.stats[-1].input_tokens
    assert fake.requests[-1].raw["stream_options"] == {"include_usage": True}


async def test_parallel_tool_calls_come_out_in_index_order_with_tool_use_stop():
    calls = (
        ToolCall("get_weather", {"city": "Oslo"}, id="call_1"),
        ToolCall("get_weather", {"city": "Rome"}, id="call_2"),
    )
    with FakeOpenAIServer(ScriptedBrain([Reply(tool_calls=calls, tool_argument_chunk=3)])) as fake:
        events = await collect(stream(adapter_for(OPENAI, fake.base_url), History().user("hi")))
    requested = [(e.id, dict(e.input)) for e in events if isinstance(e, ToolCallRequested)]
    assert requested == [("call_1", {"city": "Oslo"}), ("call_2", {"city": "Rome"})]
    assert events[-1] == StreamDone("tool_use")


async def test_reasoning_content_of_compatible_servers_streams_as_thinking():
    with FakeOpenAIServer(ScriptedBrain([Reply(thinking=("hmm",), text_chunks=("ok",))])) as fake:
        events = await collect(stream(adapter_for(COMPATIBLE, fake.base_url), History().user("hi")))
    assert [type(e) for e in events[:2]] == [ThinkingDelta, TextDelta]


async def test_openai_sends_max_completion_tokens_and_compatible_servers_max_tokens():
    with FakeOpenAIServer(ScriptedBrain(["a", "b"])) as fake:
        await collect(stream(adapter_for(OPENAI, fake.base_url), History().user("hi")))
        await collect(stream(adapter_for(COMPATIBLE, fake.base_url), History().user("hi")))
    assert fake.requests[0].raw["max_completion_tokens"] == 512 and "max_tokens" not in fake.requests[0].raw
    assert fake.requests[1].raw["max_tokens"] == 512 and "max_completion_tokens" not in fake.requests[1].raw


async def test_a_compatible_server_needs_no_key():
    with FakeOpenAIServer(ScriptedBrain(["local"])) as fake:
        events = await collect(stream(adapter_for(COMPATIBLE, fake.base_url, key=None), History().user("hi")))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "local"
    assert fake.log[-1].headers["authorization"].startswith("Bearer ")


async def test_a_finish_of_max_tokens_is_reported():
    with FakeOpenAIServer(ScriptedBrain([Reply(text_chunks=("cut",), stop_reason="max_tokens")])) as fake:
        events = await collect(stream(adapter_for(OPENAI, fake.base_url), History().user("hi")))
    assert events[-1] == StreamDone("max_tokens")


async def test_list_models_of_openai_has_no_window():
    with FakeOpenAIServer(models=[{"id": "gpt-a"}, {"id": "gpt-b"}]) as fake:
        listed = await adapter_for(OPENAI, fake.base_url).list_models()
    assert [(m.id, m.context_window_size) for m in listed] == [("gpt-a", None), ("gpt-b", None)]
    assert all(not entry.path.startswith("/api/") for entry in fake.log)


async def test_list_models_of_an_ollama_server_gives_the_context_it_runs_each_with_and_the_trained_length():
    models = [{"id": "llama3.1:8b"}, {"id": "qwen3:4b"}]
    fake = FakeOllamaServer(models=models, trained={"llama3.1:8b": 131072, "qwen3:4b": 40960},
                            num_ctx={"qwen3:4b": 16384})
    with fake:
        listed = await adapter_for(COMPATIBLE, fake.base_url, key=None).list_models()
    assert [(m.id, m.context_window_size, m.trained_window) for m in listed] == [
        ("llama3.1:8b", 4096, 131072), ("qwen3:4b", 16384, 40960)]  # Ollama's default, a Modelfile's num_ctx
    shows = [json.loads(entry.body) for entry in fake.log if entry.path == "/api/show"]
    assert shows == [{"model": "llama3.1:8b"}, {"model": "qwen3:4b"}]


async def test_list_models_of_a_compatible_server_that_says_nothing_has_no_window_and_asks_once():
    with FakeOpenAIServer(models=[{"id": "a"}, {"id": "b"}]) as fake:
        listed = await adapter_for(COMPATIBLE, fake.base_url, key=None).list_models()
    assert [m.context_window_size for m in listed] == [None, None]
    assert len([e for e in fake.log if e.path == "/api/version"]) == 1
    assert not [e for e in fake.log if e.path == "/api/show"]  # not Ollama: its API is never asked


def test_api_show_prefers_a_configured_num_ctx_over_the_trained_context_length():
    assert context_length_from_show({"model_info": {"llama.context_length": 131072}}) == 131072
    configured = {"parameters": "stop <eot>\nnum_ctx 8192", "model_info": {"x.context_length": 1}}
    assert context_length_from_show(configured) == 8192
    assert context_length_from_show({"model_info": {}}) is None
    assert server_root("http://localhost:11434/v1/") == "http://localhost:11434"
