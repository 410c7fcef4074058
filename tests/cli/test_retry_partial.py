"""`palimpsest chat -s ID --retry` after a cut-off reply: the partial is replaced on the path, never sent again."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.harness import Cli
from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import ErrorReply, Reply, ScriptedBrain

KEY = "sk-ant-retry-test-19ce"
MODEL = "claude-retry-8k"


def test_retry_after_a_partial_reply_replaces_it_and_show_all_lists_it_off_the_path(tmp_path: Path) -> None:
    (tmp_path / "keychain").mkdir()
    brain = ScriptedBrain([
        ErrorReply("cut_off", chunks_before=("Lisbon is the capital, and ",)),
        Reply.of_text("Lisbon."), Reply.of_text("Capital question"),
    ])
    with FakeAnthropicServer(brain, api_key=KEY) as server:
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")
        run = lambda *a, stdin="": cli.run(*a, stdin=stdin, subprocess_run=False)  # noqa: E731
        assert run("providers", "set", "anthropic", "--base-url", server.base_url).code == 0
        assert run("models", "add", "anthropic", MODEL, "--context-window", "8192").code == 0
        assert run("keys", "set", "anthropic", stdin=KEY + "\n").code == 0
        first = run("chat", "-p", "anthropic", "-m", MODEL, "What is the capital of Portugal?")
        assert first.code == 1 and first.out.startswith("Lisbon is the capital")
        session = first.err.split("session: ")[1].split()[0]
        again = run("chat", "-s", session, "--retry")
        assert again.code == 0, again.err
        assert again.out.strip() == "Lisbon."
        retried = brain.seen[-2] if brain.seen[-1].raw.get("stream") is False else brain.seen[-1]
        assert [m.role for m in retried.messages] == ["user"]  # the partial was not sent as a final assistant turn
        path = json.loads(run("sessions", "show", session, "--json").out)["messages"]
        assert [(m["type"], m["content"], m["active"]) for m in path] == [
            ("user", "What is the capital of Portugal?", True), ("ai_response", "Lisbon.", True)]
        everything = json.loads(run("sessions", "show", session, "--all", "--json").out)["messages"]
        assert [(m["content"], m["incomplete"], m["active"]) for m in everything] == [
            ("What is the capital of Portugal?", False, True), ("Lisbon is the capital, and ", True, False),
            ("Lisbon.", False, True)]
        assert "another branch" in run("sessions", "show", session, "--all").out
        assert run("chat", "--retry", "hello").code != 0  # --retry needs -s and no message


def test_the_fake_refuses_a_final_assistant_turn_with_trailing_whitespace_like_the_real_api() -> None:
    from tests.fakeservers.anthropic_server import refusal

    body = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Lisbon is "}]}
    assert refusal(body) == "messages: final assistant content cannot end with trailing whitespace"
    assert refusal({"messages": [{"role": "user", "content": "hi "}]}) is None
