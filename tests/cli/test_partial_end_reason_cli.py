"""`sessions show`, in a later process than the chat that was cut off, says the kept reply was cut off (issue 26):
the reason is stored with the message, not only known while the turn is on screen."""

from __future__ import annotations

from pathlib import Path

from tests.cli.harness import Cli
from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import ErrorReply, ScriptedBrain

KEY = "sk-ant-ended-test-41ab"
MODEL = "claude-ended-8k"


def test_sessions_show_says_a_reply_cut_by_the_server_was_cut_off(tmp_path: Path) -> None:
    (tmp_path / "keychain").mkdir()
    brain = ScriptedBrain([ErrorReply("cut_off", chunks_before=("Lisbon is the capital, and ",))])
    with FakeAnthropicServer(brain, api_key=KEY) as server:
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")
        run = lambda *a, stdin="": cli.run(*a, stdin=stdin, subprocess_run=False)  # noqa: E731
        assert run("providers", "set", "anthropic", "--base-url", server.base_url).code == 0
        assert run("models", "add", "anthropic", MODEL, "--context-window", "8192").code == 0
        assert run("keys", "set", "anthropic", stdin=KEY + "\n").code == 0
        first = run("chat", "-p", "anthropic", "-m", MODEL, "What is the capital of Portugal?")
        assert first.code == 1 and first.out.startswith("Lisbon is the capital")
        session = first.err.split("session: ")[1].split()[0]
    shown = cli.run("sessions", "show", session)  # a new process: only the database knows
    assert shown.code == 0, shown.err
    head = next(line for line in shown.out.splitlines() if "#2 assistant" in line)
    assert "(cut off, incomplete)" in head
