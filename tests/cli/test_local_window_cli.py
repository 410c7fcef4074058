"""An Ollama model loaded with 4,096 tokens of context (trained for 131,072): the CLI finds the real window through
Ollama's native API, compacts at 85% of 4,096 so the server never cuts a request, and says so — a `warning` event
in --jsonl, a line on stderr, the `warnings` of `sessions context`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.harness import Cli
from tests.fakeservers import Reply, ScriptedBrain
from tests.fakeservers.ollama_server import FakeOllamaServer

MODEL = "llama3.1:8b"
TRAINED = 131_072
LOADED = 4_096


def paragraph(turn: int) -> str:
    return " ".join(f"Turn {turn} note {i}: the ferry to Cacilhas leaves at {i % 12 + 7}:{i % 6}0." for i in range(30))


def test_an_ollama_model_loaded_at_4096_tokens_is_compacted_at_85_percent_and_the_user_is_told(tmp_path: Path):
    brain = ScriptedBrain(default=Reply.of_text("Noted, I will keep that in mind."))
    with FakeOllamaServer(brain, trained={MODEL: TRAINED}) as server:
        (tmp_path / "keychain").mkdir()
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")
        assert cli.run("providers", "add", "Ollama", "--type", "openai_compatible", "--base-url",
                       server.base_url, subprocess_run=False).code == 0
        first = cli.run("chat", "-p", "ollama", "-m", MODEL, "--jsonl", paragraph(0), subprocess_run=False)
        assert first.code == 0, first.err
        events = [json.loads(line) for line in first.out.splitlines()]
        session = events[0]["session_id"]
        warnings = [e["message"] for e in events if e["type"] == "warning"]
        assert len(warnings) == 1 and "4,096-token context" in warnings[0] and "131,072" in warnings[0]
        assert "num_ctx" in warnings[0] and "OLLAMA_CONTEXT_LENGTH" in warnings[0]
        compactions = 0
        for turn in range(1, 14):
            result = cli.run("chat", "-s", session, "--jsonl", paragraph(turn), subprocess_run=False)
            assert result.code == 0, result.err
            lines = [json.loads(line) for line in result.out.splitlines()]
            assert not [e for e in lines if e["type"] == "error"]
            compactions += sum(1 for e in lines if e["type"] == "compact_completed" and e["did_compact"])
        plain = cli.run("chat", "-s", session, "and the last ferry?", subprocess_run=False)
        context = json.loads(cli.run("sessions", "context", session, "--json", subprocess_run=False).out)
    assert plain.code == 0 and "palimpsest: warning: The server runs llama3.1:8b with a 4,096-token context" in \
        plain.err
    assert server.truncated == 0  # the server never had to cut a request
    assert compactions >= 1
    assert all(stat.input_tokens <= LOADED for stat in server.stats)
    assert context["window"] == LOADED and context["window_source"] == "server"
    assert context["threshold"] == int(LOADED * 0.85) and context["used"] < context["threshold"]
    assert any("num_ctx" in w and "4,096-token context" in w for w in context["warnings"])
