"""`palimpsest chat --reasoning high` on Claude Haiku 4.5 (a budget model) through the fake Messages API: a tool
chain of three steps thinks at every step (interleaved thinking), and the thinking setting is the same for every
request of the loop (the API refuses thinking switched on mid-loop; without the interleaved beta a budget model
writes no thinking after tool results, and the old rule then sent the next step with thinking off)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.harness import Cli
from tests.fakeservers import FakeAnthropicServer, NormalizedRequest, Reply, ToolCall
from tests.fakeservers.anthropic_rules import model_info

KEY = "sk-interleaved-key-1"
HAIKU = "claude-haiku-4-5-20251001"
INTERLEAVED = "interleaved-thinking-2025-05-14"


class ThreeSteps:
    """Think and call search_memory, think and call it again, then think and answer; titles get plain text."""

    def respond(self, request: NormalizedRequest) -> Reply:
        if not request.tool_names:
            return Reply.of_text("Tides")
        steps = sum(1 for m in request.messages for p in m.parts if type(p).__name__ == "ToolResultPart")
        if steps >= 2:
            return Reply(thinking=("Both results are in; ", "answer."), text_chunks=("High tide is at 14:05.",))
        return Reply(thinking=(f"Step {steps}: ", "search the notes."),
                     tool_calls=(ToolCall("search_memory", {"query": f"tide {steps}"}),))


def test_a_haiku_tool_chain_of_three_steps_thinks_at_every_step_with_one_thinking_setting(tmp_path: Path) -> None:
    with FakeAnthropicServer(ThreeSteps(), api_key=KEY, models=[model_info(HAIKU)]) as server:
        (tmp_path / "keychain").mkdir()
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json",
                  {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url})
        done = cli.run("chat", "-p", "anthropic", "-m", HAIKU, "--reasoning", "high", "--jsonl", "When is high tide?",
                       subprocess_run=False)
        events = [json.loads(line) for line in done.out.splitlines()]
        steps = [r for r in server.requests if r.tool_names]
    assert done.code == 0, done.err
    assert [e["type"] for e in events if e["type"] == "error"] == []
    assert [e["name"] for e in events if e["type"] == "tool_call"] == ["search_memory", "search_memory"]
    assert len(steps) == 3
    settings = {json.dumps(r.raw.get("thinking"), sort_keys=True) for r in steps}
    assert settings == {json.dumps({"type": "enabled", "budget_tokens": 16384}, sort_keys=True)}  # one setting
    assert all(INTERLEAVED in r.headers.get("anthropic-beta", "") for r in steps)
    for request in steps[1:]:  # each step's own thinking went back first in its assistant message
        assistants = [m for m in request.raw["messages"] if m["role"] == "assistant"]
        assert all(m["content"][0]["type"] == "thinking" for m in assistants)
    assert len(assistants) == 2
    stored = cli.run("sessions", "show", events[0]["session_id"], "--json", subprocess_run=False)
    assert stored.code == 0, stored.err
    thoughts = [m for m in json.loads(stored.out)["messages"] if m.get("thinking_content")]
    assert len(thoughts) == 3  # the last step thought too
