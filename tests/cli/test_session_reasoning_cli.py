"""A conversation's own reasoning level (`palimpsest sessions reasoning ID LEVEL`) wins over its agent's, and
`chat --reasoning` wins over both for one command; `default` goes back to the agent's setting."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.harness import Cli
from tests.fakeservers import FakeAnthropicServer, Reply, ScriptedBrain
from tests.fakeservers.anthropic_rules import model_info

KEY = "sk-session-reasoning-key-1"
HAIKU = "claude-haiku-4-5-20251001"  # a budget model: thinking only when asked


def _thinking(server: FakeAnthropicServer) -> object:
    return server.requests[-1].raw.get("thinking")


def test_session_level_beats_the_agent_and_the_flag_beats_both(tmp_path: Path) -> None:
    brain = ScriptedBrain([], default=Reply.of_text("Fine."))
    with FakeAnthropicServer(brain, api_key=KEY, models=[model_info(HAIKU)]) as server:
        (tmp_path / "keychain").mkdir()
        env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", env)

        def run(*args: str) -> str:
            done = cli.run(*args, subprocess_run=False)
            assert done.code == 0, done.err
            return done.out

        run("agents", "set", "general-assistant", "reasoning=off")
        first = run("chat", "-p", "anthropic", "-m", HAIKU, "--jsonl", "hello")
        session_id = json.loads(first.splitlines()[0])["session_id"]
        assert _thinking(server) is None  # the agent's "off"
        run("chat", "-s", session_id, "--reasoning", "high", "again")  # the flag beats the agent's override
        assert _thinking(server) == {"type": "enabled", "budget_tokens": 16384}
        shown = run("sessions", "reasoning", session_id, "low")
        assert f"Reasoning for {session_id}: low (this session's own setting" in shown
        run("chat", "-s", session_id, "more")
        assert _thinking(server) == {"type": "enabled", "budget_tokens": 2048}  # kept for the session
        listed = json.loads(run("sessions", "list", "--json"))
        assert [s["reasoning"] for s in listed] == ["low"]
        run("chat", "-s", session_id, "--reasoning", "medium", "once")  # still the flag over the session
        assert _thinking(server) == {"type": "enabled", "budget_tokens": 8192}
        assert "off (the agent's or the app's setting" in run("sessions", "reasoning", session_id, "default")
        run("chat", "-s", session_id, "last")
        assert _thinking(server) is None


def test_an_unknown_level_or_session_is_a_clear_error_and_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "keychain").mkdir()
    cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")
    bad = cli.run("sessions", "reasoning", "s-missing", "extreme")
    assert bad.code == 2 and "invalid choice: 'extreme'" in bad.err and "Traceback" not in bad.err
    missing = cli.run("sessions", "reasoning", "s-missing", "high", subprocess_run=False)
    assert missing.code != 0 and "s-missing" in missing.err and "Traceback" not in missing.err


def test_a_long_prompt_with_thinking_on_keeps_input_plus_max_tokens_inside_the_window(tmp_path: Path) -> None:
    """The fake refuses prompt + max_tokens over the window like the Messages API; the reply's room is planned with
    the thinking budget on top, so the request goes through without a refusal or a compaction."""
    brain = ScriptedBrain([], default=Reply(thinking=("Read it.",), text_chunks=("Read.",)))
    paste = " ".join(f"line {i}: the quick brown fox jumps over the lazy dog" for i in range(1_500))
    with FakeAnthropicServer(brain, api_key=KEY, models=[model_info(HAIKU)],
                             context_windows={HAIKU: 40_000}) as server:
        (tmp_path / "keychain").mkdir()
        env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", env)
        assert cli.run("models", "add", "anthropic", HAIKU, "--context-window", "40000",
                       subprocess_run=False).code == 0
        done = cli.run("chat", "-p", "anthropic", "-m", HAIKU, "--reasoning", "high", "--jsonl", paste,
                       subprocess_run=False)
        assert done.code == 0, done.err
        events = [json.loads(line) for line in done.out.splitlines()]
        first = server.requests[0]
        thinking_requests = [r for r in server.requests if "thinking" in r.raw]
    assert len(thinking_requests) == 1  # accepted at once: no refusal, no compaction, no retry
    assert not [e for e in events if e["type"] == "error" or e["type"].startswith("compact")]
    assert first.raw["thinking"]["type"] == "enabled"
    assert first.raw["max_tokens"] > first.raw["thinking"]["budget_tokens"]
