"""CLI wording says what is true: roles in words, summary headings under their section, the effective base URL,
the known agents and models when a name is wrong, and `providers delete` for added endpoints."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from domain.models import Session
from domain.usecases.export_session import demote_headings, detail_to_markdown
from domain.usecases.show_session import SessionDetail
from tests.cli.harness import Cli, CliResult
from tests.fakeservers import FakeAnthropicServer, FakeOpenAIServer, ScriptedBrain

KEY = "sk-ant-wording-test-55"
MODEL = "claude-wording-8k"


class Env:
    """A CLI on its own data folder with a fake Anthropic server configured (key, base URL, one added model)."""

    def __init__(self, tmp_path: Path, server: FakeAnthropicServer) -> None:
        (tmp_path / "keychain").mkdir(exist_ok=True)
        self.cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")
        self.server = server

    def run(self, *args: str, stdin: str = "") -> CliResult:
        return self.cli.run(*args, stdin=stdin, subprocess_run=False)


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    with FakeAnthropicServer(ScriptedBrain(["Noted."] * 6), api_key=KEY) as server:
        e = Env(tmp_path, server)
        assert e.run("providers", "set", "anthropic", "--base-url", server.base_url).code == 0
        assert e.run("models", "add", "anthropic", MODEL, "--context-window", "8192").code == 0
        assert e.run("keys", "set", "anthropic", stdin=KEY + "\n").code == 0
        yield e


def _add_local(env: Env, base_url: str) -> CliResult:
    return env.run("providers", "add", "Local", "--type", "openai_compatible", "--base-url", base_url)


def _session_id(result: CliResult) -> str:
    return result.err.split("session: ", 1)[1].split()[0]


def test_sessions_show_names_roles_in_words(env: Env) -> None:
    chat = env.run("chat", "-p", "anthropic", "-m", MODEL, "hello")
    assert chat.code == 0, chat.err
    shown = env.run("sessions", "show", _session_id(chat)).out
    assert "#1 user" in shown and "#2 assistant" in shown and "ai_response" not in shown


def test_the_markdown_export_puts_the_summary_headings_under_its_section() -> None:
    now = datetime.now(UTC)
    summary = "## Goal\nPlan the trip.\n\n## Next Steps\n- book\n\n```md\n## not a heading\n```"
    session = Session(id="s1", title="Trip", current_agent_id=None, created_at=now, updated_at=now,
                      compacted_summary=summary)
    markdown = detail_to_markdown(SessionDetail(session, (), ()))
    lines = markdown.splitlines()
    assert lines.index("## Current summary") < lines.index("### Goal") < lines.index("### Next Steps")
    assert lines.index("### Next Steps") < lines.index("## Messages")
    assert "## not a heading" in lines and "## Goal" not in lines
    assert demote_headings("# A\n###### B", top=3) == "### A\n###### B"


def test_providers_list_shows_the_effective_base_url_and_where_it_comes_from(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/openai-proxy/v1")
    rows = {line.split()[0]: line.split() for line in env.run("providers", "list").out.splitlines()[1:]}
    assert rows["openai"][-3:-1] == ["http://127.0.0.1:9/openai-proxy/v1", "OPENAI_BASE_URL"]
    assert rows["anthropic"][-3:-1] == [env.server.base_url, "setting"]
    assert rows["gemini"][-3:-1] == ["https://generativelanguage.googleapis.com", "default"]
    assert "(default)" not in env.run("providers", "list").out


def test_an_unknown_agent_lists_the_known_ones(env: Env) -> None:
    result = env.run("chat", "--agent", "nobody", "hi")
    assert result.code == 1
    assert "No agent named 'nobody'. Known agents: General assistant." in result.err
    assert json.loads(env.run("sessions", "list", "--json").out) == []


def test_an_unknown_model_is_refused_with_the_known_ones_and_nothing_is_stored(env: Env) -> None:
    result = env.run("chat", "-p", "anthropic", "-m", "nosuchmodel", "hi")
    assert result.code == 1 and "Anthropic has no model 'nosuchmodel'" in result.err
    assert "Known: claude-" in result.err and "more. See them all with: palimpsest models list" in result.err
    assert "palimpsest models add anthropic nosuchmodel --context-window N" in result.err
    assert env.server.requests == []
    assert json.loads(env.run("sessions", "list", "--json").out) == []
    known = env.run("chat", "-p", "anthropic", "-m", MODEL, "hi")  # an added model is fine
    assert known.code == 0 and "note:" not in known.err


def test_an_unlisted_model_on_a_compatible_server_is_sent_with_a_warning(env: Env) -> None:
    with FakeOpenAIServer(ScriptedBrain(["Hi from local."])) as local:
        assert _add_local(env, local.base_url).code == 0
        result = env.run("chat", "-p", "local", "-m", "llama-unlisted", "hi")
    assert result.code == 0, result.err
    assert "note: 'llama-unlisted' is not among Local's known models" in result.err
    assert result.out.strip() == "Hi from local." and local.requests[0].model == "llama-unlisted"


def test_providers_delete_removes_an_added_endpoint_and_its_models_but_keeps_its_sessions(env: Env) -> None:
    with FakeOpenAIServer(ScriptedBrain(["Local reply."])) as local:
        assert _add_local(env, local.base_url).code == 0
        assert env.run("models", "add", "local", "llama-8k", "--context-window", "8192").code == 0
        assert env.run("keys", "set", "local", stdin="sk-local-key-123\n").code == 0
        chat = env.run("chat", "-p", "local", "-m", "llama-8k", "hello local")
        assert chat.code == 0, chat.err
    deleted = env.run("providers", "delete", "Local")
    assert deleted.code == 0 and "Deleted Local (id local)" in deleted.out
    assert "local" not in [line.split()[0] for line in env.run("providers", "list").out.splitlines()[1:]]
    assert "llama-8k" not in env.run("models", "list").out
    assert "local" not in env.run("keys", "status").out.split()
    shown = env.run("sessions", "show", _session_id(chat), "--json")
    assert shown.code == 0 and "Local reply." in shown.out
    again = env.run("providers", "delete", "local")
    assert again.code == 1 and "No provider named 'local'" in again.err


def test_a_built_in_provider_cannot_be_deleted(env: Env) -> None:
    result = env.run("providers", "delete", "anthropic")
    assert result.code == 1 and "Anthropic is built in and cannot be deleted" in result.err
    assert "anthropic" in env.run("providers", "list").out
