"""`palimpsest sessions prompt ID ["text" | -] [--clear]`: a session's own system prompt is what the next request
sends (the agent's memory section still after it), `sessions show --json` carries it, `--clear` goes back."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.harness import Cli
from tests.fakeservers import FakeAnthropicServer, Reply, ScriptedBrain
from tests.fakeservers.anthropic_rules import model_info

KEY = "sk-session-prompt-key-1"
HAIKU = "claude-haiku-4-5-20251001"


def _sent(server: FakeAnthropicServer) -> str:
    """The system prompt of the last chat request (the title request has its own)."""
    return [r.system for r in server.requests if not r.system.startswith("You write short titles")][-1]


def _cli(tmp_path: Path, env: dict[str, str] | None = None) -> Cli:
    (tmp_path / "keychain").mkdir(exist_ok=True)
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", env)


def test_the_sessions_prompt_is_sent_shown_and_cleared(tmp_path: Path) -> None:
    brain = ScriptedBrain([], default=Reply.of_text("Fine."))
    with FakeAnthropicServer(brain, api_key=KEY, models=[model_info(HAIKU)]) as server:
        cli = _cli(tmp_path, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url})

        def run(*args: str, stdin: str = "") -> str:
            done = cli.run(*args, stdin=stdin, subprocess_run=False)
            assert done.code == 0, done.err
            return done.out

        run("agents", "set", "general-assistant", "system_prompt=You are the house agent.")
        first = run("chat", "-p", "anthropic", "-m", HAIKU, "--jsonl", "hello")
        session_id = json.loads(first.splitlines()[0])["session_id"]
        assert _sent(server).startswith("You are the house agent.")
        shown = run("sessions", "prompt", session_id)
        assert "(the agent's, General assistant)" in shown and "    You are the house agent." in shown
        agents = json.loads(run("sessions", "context", session_id, "--json"))["breakdown"]["system"]
        run("sessions", "prompt", session_id, "Answer only in French. " * 50)
        assert json.loads(run("sessions", "context", session_id, "--json"))["breakdown"]["system"] > agents + 100
        shown = run("sessions", "prompt", session_id, "Answer only in French.")
        assert "this session's own" in shown and "    Answer only in French." in shown
        run("chat", "-s", session_id, "again")
        assert _sent(server).startswith("Answer only in French.")
        assert "house agent" not in _sent(server)
        assert json.loads(run("sessions", "show", session_id, "--json"))["system_prompt"] == "Answer only in French."
        run("sessions", "prompt", session_id, "-", stdin="Line one.\nLine two.\n")
        run("chat", "-s", session_id, "more")
        assert _sent(server).startswith("Line one.\nLine two.")
        assert "(the agent's" in run("sessions", "prompt", session_id, "--clear")
        run("chat", "-s", session_id, "last")
        assert _sent(server).startswith("You are the house agent.")
        assert json.loads(run("sessions", "show", session_id, "--json"))["system_prompt"] is None


def test_bad_input_is_a_clear_error_and_changes_nothing(tmp_path: Path) -> None:
    cli = _cli(tmp_path)
    missing = cli.run("sessions", "prompt", "s-missing", "Hi", subprocess_run=False)
    assert missing.code != 0 and "s-missing" in missing.err and "Traceback" not in missing.err
    both = cli.run("sessions", "prompt", "s-missing", "Hi", "--clear", subprocess_run=False)
    assert both.code != 0 and "either a new prompt or --clear" in both.err
    huge = cli.run("sessions", "prompt", "s-missing", "-", stdin="x" * 100_001, subprocess_run=False)
    assert huge.code != 0 and "at most 100,000 characters" in huge.err and "Traceback" not in huge.err
