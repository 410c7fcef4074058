"""A 40-turn `palimpsest chat` session on OpenAI's Responses API (the fake), with --reasoning medium and a tool call
in every turn: no error, every earlier reasoning item sent back where the API wants it (the fake refuses any
misplaced or altered one), and every turn after the first reading most of its input from the prompt cache."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.harness import Cli
from tests.fakeservers import NormalizedRequest, Reply, ToolCall
from tests.fakeservers.responses_server import FakeResponsesServer

KEY = "sk-responses-e2e-key"
MODEL = "gpt-5-mini"
TURNS = 40
PLANS = "I am planning the day around the tides. " * 60


class ToolThenAnswer:
    """Every user turn: think, call search_memory, then (with its result) think and answer; anything else (the
    title) gets plain text."""

    def respond(self, request: NormalizedRequest) -> Reply:
        last = request.messages[-1] if request.messages else None
        if not request.tool_names or last is None:
            return Reply.of_text("Ferry notes")
        if last.role == "tool":
            return Reply(thinking=("The search came back; ", "answer from it."),
                         text_chunks=(f"Answer {len(request.messages)}: ", "the ferry leaves at nine."))
        return Reply(thinking=("Check the saved notes ", "before answering."),
                     tool_calls=(ToolCall("search_memory", {"query": "ferry"}),), tool_argument_chunk=5)


def test_forty_turns_with_reasoning_and_tools_on_the_responses_api(tmp_path: Path) -> None:
    with FakeResponsesServer(ToolThenAnswer(), api_key=KEY) as server:
        (tmp_path / "keychain").mkdir()
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json",
                  {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url})
        assert cli.run("providers", "set", "openai", "--api", "responses", subprocess_run=False).code == 0
        session = None
        per_turn: list[dict[str, int]] = []
        errors: list[str] = []
        for turn in range(TURNS):
            where = ["-s", session] if session else ["-p", "openai", "-m", MODEL]
            text = f"Turn {turn}: when does the ferry to Cacilhas leave? " + PLANS
            result = cli.run("chat", *where, "--reasoning", "medium", "--jsonl", text, subprocess_run=False)
            events = [json.loads(line) for line in result.out.splitlines()]
            session = session or events[0]["session_id"]
            errors += [e["message"] for e in events if e["type"] == "error"] + ([result.err] if result.code else [])
            assert [e["name"] for e in events if e["type"] == "tool_call"] == ["search_memory"]
            per_turn.append(next(e["usage"] for e in events if e["type"] == "response_complete"))
    assert errors == [] and server.refusals == [] and server.failures == []
    chats = [r.raw for r in server.requests if r.raw.get("tools")]
    assert len(chats) == 2 * TURNS
    assert all(r["reasoning"] == {"summary": "auto", "effort": "medium"} and r["store"] is False for r in chats)
    assert len({r["prompt_cache_key"] for r in chats}) == 1  # one key for the whole session
    for index, request in enumerate(chats):  # every earlier response's reasoning goes back, right before its item
        kinds = [item.get("type") or item.get("role") for item in request["input"]]
        assert kinds.count("reasoning") == index
        following = [kinds[i + 1] for i, kind in enumerate(kinds) if kind == "reasoning"]
        assert set(following) <= {"function_call", "assistant"}
    for usage in per_turn[1:]:
        assert usage["cache_read_tokens"] > usage["input_tokens"] / 2, usage
    assert all(usage["reasoning_tokens"] > 0 for usage in per_turn)
