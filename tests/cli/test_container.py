"""The composition root builds every use case over one store, and the key prompt stays hidden."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from app.cli import providers_cmd
from app.container import Container
from tests.fakes import FakeApiKeyStorage


def test_container_builds_over_a_fresh_home_and_exposes_the_use_cases(tmp_path: Path) -> None:
    keys = FakeApiKeyStorage({"openai": "sk-env"})
    container = Container.build(tmp_path / "home", keys=keys)
    try:
        assert (tmp_path / "home" / "palimpsest.db").is_file()
        assert container.list_sessions() == []
        assert [p.provider.id for p in container.list_providers()] == ["anthropic", "openai", "gemini"]
        assert container.api_key_status().statuses[1].source == "environment"
        session = container.create_session()
        assert container.show_session(session.id).session.current_agent_id == container.agents.default().id
        assert [d.name for d in container.tools.definitions()] == [
            "http_request", "save_memory", "search_memory", "read_tool_result"]
        for name in ("send_message", "compact_now", "reset_context", "edit_summary", "context_status",
                     "generate_title", "export_session", "search_sessions", "rename_session", "configure_agent",
                     "pin_message", "refresh_models", "add_model", "save_agent", "save_memory_entry",
                     "save_context_settings", "select_target", "session_usage"):
            assert callable(getattr(container, name)), name
    finally:
        container.close()


def test_the_key_is_read_with_a_hidden_prompt_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    prompts: list[str] = []
    monkeypatch.setattr(providers_cmd.getpass, "getpass", lambda prompt: prompts.append(prompt) or "sk-typed")
    assert providers_cmd.read_key(Terminal(), "API key for OpenAI (input hidden): ") == "sk-typed"
    assert prompts == ["API key for OpenAI (input hidden): "]
    assert providers_cmd.read_key(io.StringIO("sk-piped\n"), "unused") == "sk-piped\n"


def test_the_container_reuses_an_adapter_per_provider_and_key_within_one_event_loop() -> None:
    import asyncio

    from app.adapter_cache import LazyAdapterFactory
    from domain.models import Provider, ProviderType

    factory = LazyAdapterFactory()
    anthropic = Provider("anthropic", "Anthropic", ProviderType.ANTHROPIC)

    async def two_calls(key_a: str, key_b: str) -> tuple[object, object]:
        return factory.create(anthropic, key_a), factory.create(anthropic, key_b)

    first, again = asyncio.run(two_calls("sk-one", "sk-one"))
    assert first is again  # no new SDK client (and TLS context) per request
    same_loop, other_key = asyncio.run(two_calls("sk-one", "sk-two"))
    assert same_loop is not first  # another event loop gets its own client
    assert other_key is not same_loop  # a changed key gets a new client
    moved = Provider("anthropic", "Anthropic", ProviderType.ANTHROPIC, base_url="http://127.0.0.1:9")

    async def after_base_url_change() -> tuple[object, object]:
        return factory.create(anthropic, "sk-one"), factory.create(moved, "sk-one")

    before, after = asyncio.run(after_base_url_change())
    assert before is not after  # a changed base URL gets a new client


@pytest.mark.parametrize("kind", ["anthropic", "openai", "gemini"])
def test_closing_the_adapters_closes_each_sdk_client_on_the_loop_that_used_it(kind: str) -> None:
    import asyncio

    from app.adapter_cache import LazyAdapterFactory
    from domain.models import Provider, ProviderType
    from tests.fakeservers import FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer, ScriptedBrain

    servers = {"anthropic": FakeAnthropicServer, "openai": FakeOpenAIServer, "gemini": FakeGeminiServer}
    types = {"anthropic": ProviderType.ANTHROPIC, "openai": ProviderType.OPENAI, "gemini": ProviderType.GEMINI}
    with servers[kind](ScriptedBrain([]), api_key="sk-close-test") as server:
        provider = Provider(kind, kind.title(), types[kind], base_url=server.base_url)
        factory = LazyAdapterFactory()

        async def list_then_close() -> tuple[Any, bool]:
            adapter: Any = factory.create(provider, "sk-close-test")
            assert await adapter.list_models()  # a real request: the client now holds an open connection
            open_before = not _closed(adapter._client)
            await factory.aclose()
            return adapter, open_before

        adapter, open_before = asyncio.run(list_then_close())
    assert open_before and _closed(adapter._client)

    async def again() -> object:
        return factory.create(provider, "sk-close-test")

    assert asyncio.run(again()) is not adapter  # a closed client is never handed out again


def _closed(client: Any) -> bool:
    if hasattr(client, "is_closed"):  # anthropic, openai
        return bool(client.is_closed())
    return bool(client.aio._api_client._async_httpx_client.is_closed)  # google-genai: its httpx client


def test_every_use_case_built_on_first_use_builds_over_a_real_store(tmp_path: Path) -> None:
    from functools import cached_property

    from app.container_management import ManagementUseCases

    lazy = [name for name, value in vars(ManagementUseCases).items() if isinstance(value, cached_property)]
    container = Container.build(tmp_path / "home", keys=FakeApiKeyStorage({}))
    try:
        assert "list_sessions" in lazy and "import_conversations" in lazy and "knowledge" in lazy
        for name in lazy:
            assert getattr(container, name) is getattr(container, name), name  # built once, then kept
    finally:
        container.close()
