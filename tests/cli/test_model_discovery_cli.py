"""A model the registry does not know is looked up in the provider's model list on its first use (real SDK against
the fake's GET /v1/models): its window and capabilities apply from the first request, and later commands reuse them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.harness import Cli
from tests.fakeservers import FakeAnthropicServer, Reply, ScriptedBrain
from tests.fakeservers.anthropic_rules import model_info

KEY = "sk-discovery-key-1"
FUTURE = "claude-future-9-20270101"  # in no registry: only the provider can say what it is


def test_an_unknown_model_is_described_by_the_providers_list_from_its_first_use(tmp_path: Path) -> None:
    info = model_info(FUTURE, thinking="adaptive", efforts=("low", "medium", "high", "max"), max_input=300_000,
                      max_tokens=96_000)
    brain = ScriptedBrain([], default=Reply(thinking=("Hm.",), text_chunks=("Hello.",)))
    with FakeAnthropicServer(brain, api_key=KEY, models=[info]) as server:
        (tmp_path / "keychain").mkdir()
        env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", env)
        first = cli.run("chat", "-p", "anthropic", "-m", FUTURE, "--reasoning", "high", "--jsonl", "hi",
                        subprocess_run=False)
        assert first.code == 0, first.err
        session_id = json.loads(first.out.splitlines()[0])["session_id"]
        sent = server.requests[0].raw
        lists = [r for r in server.log if r.method == "GET" and r.path == "/v1/models"]
        context = json.loads(cli.run("sessions", "context", session_id, "--json", subprocess_run=False).out)
        again = cli.run("chat", "-s", session_id, "more", subprocess_run=False)
        lists_after = [r for r in server.log if r.method == "GET" and r.path == "/v1/models"]
    assert sent["thinking"]["type"] == "adaptive" and sent["output_config"] == {"effort": "high"}
    assert len(lists) == 1
    assert (context["window"], context["window_source"]) == (300_000, "provider_api")
    assert again.code == 0 and len(lists_after) == 1  # described now: never looked up again
