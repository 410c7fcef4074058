"""A conversation on a model Anthropic retired, from the command line against the fake Anthropic server refusing
it as the real API does (404 not_found_error "model: <id>"): the warning before the request, the error that names
the day and the successor, the message kept, and a Retry on the successor that answers it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.harness import Cli
from tests.fakeservers import FakeAnthropicServer, Reply, ScriptedBrain
from tests.fakeservers.anthropic_server import RETIRED_MODELS

KEY = "sk-retired-model-key-1"
RETIRED = "claude-sonnet-4-20250514"  # retired on 15 June 2026 (Anthropic's model deprecations page)


def _cli(tmp_path: Path, server: FakeAnthropicServer) -> Cli:
    (tmp_path / "keychain").mkdir(exist_ok=True)
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", env)


def test_a_retired_model_is_named_with_its_successor_and_the_message_waits_for_retry(tmp_path: Path) -> None:
    with FakeAnthropicServer(ScriptedBrain([], default=Reply.of_text("Hello from 4.6.")), api_key=KEY) as server:
        server.retired = RETIRED_MODELS
        cli = _cli(tmp_path, server)
        done = cli.run("chat", "-p", "anthropic", "-m", RETIRED, "--jsonl", "Are you there?", subprocess_run=False)
        assert done.code != 0
        events = [json.loads(line) for line in done.out.splitlines()]
        notice = next(e for e in events if e["type"] == "warning")
        assert notice["message"] == (
            "Claude Sonnet 4 was retired on 15 June 2026: Anthropic may refuse it. Claude Sonnet 4.6 "
            "(claude-sonnet-4-6) replaces it; choose it for this conversation.")
        error = next(e for e in events if e["type"] == "error")
        assert error["message"].startswith(
            "Claude Sonnet 4 was retired on 15 June 2026 and Anthropic no longer serves it. Claude Sonnet 4.6 "
            "(claude-sonnet-4-6) replaces it: choose it for this conversation, then Retry (your message is kept).")
        assert "request id req_" in error["message"]
        session_id = events[0]["session_id"]

        retried = cli.run("chat", "-s", session_id, "-m", "claude-sonnet-4-6", "--retry", subprocess_run=False)
        assert retried.code == 0, retried.err
        assert retried.out.strip() == "Hello from 4.6."
        assert "retire" not in retried.err
        assert {r.model for r in server.requests} == {"claude-sonnet-4-6"}  # the refused request was never answered
    shown = cli.run("sessions", "show", session_id, "--json", subprocess_run=False)
    assert shown.code == 0, shown.err
    messages = json.loads(shown.out)["messages"]
    assert [(m["type"], m["content"]) for m in messages] == [
        ("user", "Are you there?"), ("ai_response", "Hello from 4.6.")]


def test_models_list_notes_each_retirement_with_its_successor(tmp_path: Path) -> None:
    (tmp_path / "keychain").mkdir()
    done = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", {}).run(
        "models", "list", "-p", "anthropic", subprocess_run=False)
    assert done.code == 0, done.err
    rows = {line.split()[1]: line for line in done.out.splitlines()[1:]}
    assert rows[RETIRED].endswith("retired 2026-06-15 (use claude-sonnet-4-6)")
    assert rows["claude-sonnet-4-5-20250929"].endswith(" 2026-11-30 (use claude-sonnet-4-6)")  # retires, then retired
    assert rows["claude-3-5-haiku-20241022"].endswith("retired 2026-02-19 (use claude-haiku-4-5-20251001)")
    assert rows["claude-sonnet-4-6"].endswith("default")


def test_the_text_output_gives_the_command_that_retries_on_the_successor(tmp_path: Path) -> None:
    with FakeAnthropicServer(ScriptedBrain([], default=Reply.of_text("Back.")), api_key=KEY) as server:
        server.retired = RETIRED_MODELS
        cli = _cli(tmp_path, server)
        done = cli.run("chat", "-p", "anthropic", "-m", RETIRED, "Hello?", subprocess_run=False)
        assert done.code != 0 and done.out == ""
        session_id = done.err.split("session: ", 1)[1].split()[0]
        assert "palimpsest: warning: Claude Sonnet 4 was retired on 15 June 2026" in done.err
        command = f"palimpsest chat -s {session_id} -m claude-sonnet-4-6 --retry"
        assert done.err.rstrip().endswith(f"Retry with: {command}")
        again = cli.run(*command.split()[1:], subprocess_run=False)
    assert again.code == 0 and again.out.strip() == "Back.", again.err
