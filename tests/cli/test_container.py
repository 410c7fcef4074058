"""The composition root builds every use case over one store, and the key prompt stays hidden."""

from __future__ import annotations

import io
from pathlib import Path

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
                     "generate_title", "memory_flush", "export_session", "search_sessions", "rename_session",
                     "pin_message", "refresh_models", "add_model", "save_agent", "save_memory_entry"):
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
