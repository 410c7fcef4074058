"""`palimpsest chat --reasoning LEVEL`: the level reaches the provider for this command only (never stored), a bad
level is a usage error; --jsonl reports the reply's reasoning tokens apart."""

from __future__ import annotations

import json
from pathlib import Path

from app.cli.jsonl import event_record
from domain.events import ResponseComplete
from domain.models import Usage
from tests.cli.harness import Cli
from tests.fakeservers import FakeAnthropicServer, Reply, ScriptedBrain, ToolCall
from tests.fakeservers.anthropic_rules import model_info

KEY = "sk-reasoning-test-key-1"
HAIKU = "claude-haiku-4-5-20251001"  # a budget model: thinking only when asked


def _cli(tmp_path: Path, server: FakeAnthropicServer) -> Cli:
    (tmp_path / "keychain").mkdir(exist_ok=True)
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", env)


def test_reasoning_high_thinks_for_this_command_only(tmp_path: Path) -> None:
    brain = ScriptedBrain([Reply(thinking=("Weighing ", "it."), text_chunks=("Hi.",))], default=Reply.of_text("Again."))
    with FakeAnthropicServer(brain, api_key=KEY, models=[model_info(HAIKU)]) as server:
        cli = _cli(tmp_path, server)
        first = cli.run("chat", "-p", "anthropic", "-m", HAIKU, "--reasoning", "high", "--jsonl", "hello",
                        subprocess_run=False)
        lines = [json.loads(line) for line in first.out.splitlines()]
        session_id = lines[0]["session_id"]
        second = cli.run("chat", "-s", session_id, "-m", HAIKU, "more", subprocess_run=False)
    assert first.code == 0 and second.code == 0, first.err + second.err
    assert [line["text"] for line in lines if line["type"] == "thinking_delta"] == ["Weighing ", "it."]
    usage = next(line["usage"] for line in lines if line["type"] == "response_complete")
    assert set(usage) == {"input_tokens", "output_tokens", "cache_read_tokens", "reasoning_tokens"}
    assert server.requests[0].raw["thinking"] == {"type": "enabled", "budget_tokens": 16384}
    later = [r.raw for r in server.requests[1:]]  # the title, then the second reply
    assert later and all("thinking" not in raw for raw in later)  # the stored setting (auto) is untouched


def test_an_unknown_reasoning_level_is_a_usage_error_and_nothing_is_sent(tmp_path: Path) -> None:
    with FakeAnthropicServer(ScriptedBrain(["unused"]), api_key=KEY) as server:
        result = _cli(tmp_path, server).run("chat", "-p", "anthropic", "--reasoning", "extreme", "hello")
    assert result.code == 2 and server.log == []
    assert "argument --reasoning: invalid choice: 'extreme'" in result.err and "Traceback" not in result.err


def test_jsonl_response_complete_reports_reasoning_tokens() -> None:
    record = event_record(ResponseComplete("m1", Usage(input_tokens=10, output_tokens=50, reasoning_tokens=42)))
    assert record["usage"]["reasoning_tokens"] == 42 and record["usage"]["output_tokens"] == 50


def test_a_stored_thinking_tool_loop_goes_back_signed_and_a_model_switch_never_replays_it(tmp_path: Path) -> None:
    search = ToolCall("search_memory", {"query": "Lisbon"})
    brain = ScriptedBrain([Reply(thinking=("Check memory.",), tool_calls=(search,)), Reply.of_text("Nothing saved.")],
                          default=Reply.of_text("Title"))
    other = "claude-opus-4-5-20251101"
    with FakeAnthropicServer(brain, api_key=KEY, models=[model_info(HAIKU), model_info(other)]) as server:
        cli = _cli(tmp_path, server)
        first = cli.run("chat", "-p", "anthropic", "-m", HAIKU, "--reasoning", "high", "Trip notes?",
                        subprocess_run=False)
        session_id = first.err.splitlines()[0].removeprefix("session: ")
        brain.push(Reply(thinking=("Fresh start.",), tool_calls=(search,)), Reply.of_text("Still nothing."))
        switched = cli.run("chat", "-s", session_id, "-m", other, "--reasoning", "high", "And now?",
                           subprocess_run=False)
    assert first.code == 0 and switched.code == 0, first.err + switched.err
    loop = server.requests[1].raw  # the round after the tool ran: the stored block, read back from the database
    assert loop["messages"][1]["content"][0]["type"] == "thinking"
    assert loop["messages"][1]["content"][0]["thinking"] == "Check memory."
    for request in (r.raw for r in server.requests if r.raw["model"] == other):
        sent = [b for m in request["messages"] if m["role"] == "assistant" for b in m["content"]
                if b["type"] == "thinking"]
        assert all(b["thinking"] == "Fresh start." for b in sent)  # Haiku's block never reaches Opus
