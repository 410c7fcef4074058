"""What context a local server really runs a model with: Ollama (only once /api/version says it is Ollama),
llama.cpp, LM Studio; any other server: nothing is assumed."""

from __future__ import annotations

import openai

from data.providers.local_server import probe_window
from domain.models import ProviderType, ServerWindow
from tests.fakeservers import FakeOpenAIServer, ScriptedBrain
from tests.fakeservers.local_servers import FakeLlamaCppServer, FakeLmStudioServer
from tests.fakeservers.ollama_server import FakeOllamaServer
from tests.providers.helpers import History, adapter_for, collect, stream


def client(base_url: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(api_key="not-needed", base_url=base_url, max_retries=0, timeout=5)


async def test_ollama_reports_the_loaded_context_and_the_trained_length():
    with FakeOllamaServer(ScriptedBrain(["hi"]), trained={"llama3.1:8b": 131072}) as server:
        before = await probe_window(client(server.base_url), "llama3.1:8b")  # not loaded yet: Ollama's default
        await collect(stream(adapter_for(ProviderType.OPENAI_COMPATIBLE, server.base_url), History().user("hi"),
                             model="llama3.1:8b"))
        after = await probe_window(client(server.base_url), "llama3.1:8b")  # /api/ps now lists it
    assert before == after == ServerWindow("Ollama", 4096, 131072)
    assert "/api/ps" in [r.path for r in server.log] and "/api/version" in [r.path for r in server.log]


async def test_ollama_num_ctx_from_a_modelfile_is_the_window():
    with FakeOllamaServer(trained={"big:latest": 131072}, num_ctx={"big:latest": 32768}) as server:
        found = await probe_window(client(server.base_url), "big:latest")
    assert found == ServerWindow("Ollama", 32768, 131072) and found.short


async def test_a_server_that_is_not_ollama_is_never_assumed_to_be():
    with FakeOpenAIServer(ScriptedBrain([])) as server:
        assert await probe_window(client(server.base_url), "gpt-test-1") is None
    assert "/api/show" not in [r.path for r in server.log]  # /api/version said no: Ollama's API is not asked


async def test_llama_cpp_reports_its_ctx_size_and_the_trained_length():
    with FakeLlamaCppServer(n_ctx=8192, n_ctx_train=131072) as server:
        found = await probe_window(client(server.base_url), server.model)
    assert found == ServerWindow("llama.cpp", 8192, 131072) and found.short


async def test_lm_studio_reports_the_loaded_context_length():
    with FakeLmStudioServer(loaded=4096, maximum=32768) as server:
        found = await probe_window(client(server.base_url), server.model)
    assert found == ServerWindow("LM Studio", 4096, 32768)


async def test_the_adapter_probes_once_and_never_for_openai_itself():
    with FakeOllamaServer(trained={"m": 8192}) as server:
        compatible = adapter_for(ProviderType.OPENAI_COMPATIBLE, server.base_url)
        assert await compatible.server_window("m") == ServerWindow("Ollama", 4096, 8192)
        asked = len(server.log)
        assert await compatible.server_window("m") == ServerWindow("Ollama", 4096, 8192)
        assert len(server.log) == asked
        assert await adapter_for(ProviderType.OPENAI, server.base_url).server_window("m") is None
        assert len(server.log) == asked
