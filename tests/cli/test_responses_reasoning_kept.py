"""A 10-turn `palimpsest chat` session on the Responses API (the fake) with tool calls: every earlier turn's reasoning
items go back in their original place, so each request's input is the previous request's input plus the new items
(the prefix identical turn to turn), the prompt cache reads almost all of it, and the gauge counts every item the
next request sends back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.container import Container
from data.storage import Storage
from domain.context.estimator import TokenEstimator
from tests.cli.harness import Cli
from tests.fakes import FakeApiKeyStorage
from tests.fakes_turn import FakeAdapterFactory
from tests.fakeservers import NormalizedRequest, Reply, ToolCall
from tests.fakeservers.responses_server import FakeResponsesServer

KEY = "sk-responses-kept-key"
MODEL = "gpt-5-mini"
TURNS = 10
PLANS = "Planning the week around the tides and the ferries. " * 20


class TwoCallsThenAnswer:
    """Every user turn: think and call search_memory, think and call it again, then think and answer; the title
    request gets plain text."""

    def respond(self, request: NormalizedRequest) -> Reply:
        if not request.tool_names or not request.messages:
            return Reply.of_text("Ferry notes")
        steps = 0
        for message in reversed(request.messages):
            if message.role == "user":
                break
            steps += message.role == "tool"
        if steps >= 2:
            return Reply(thinking=("Both searches came back; ", "answer."), text_chunks=("The ferry leaves at nine.",))
        return Reply(thinking=(f"Search step {steps}: ", "look at the notes."),
                     tool_calls=(ToolCall("search_memory", {"query": f"ferry {steps}"}),))


def test_ten_turns_send_every_earlier_reasoning_item_back_in_place(tmp_path: Path) -> None:
    with FakeResponsesServer(TwoCallsThenAnswer(), api_key=KEY) as server:
        (tmp_path / "keychain").mkdir()
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json",
                  {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url})
        assert cli.run("providers", "set", "openai", "--api", "responses", subprocess_run=False).code == 0
        session = None
        errors: list[str] = []
        for turn in range(TURNS):
            where = ["-s", session] if session else ["-p", "openai", "-m", MODEL]
            result = cli.run("chat", *where, "--reasoning", "medium", "--jsonl", f"Turn {turn}: the ferry? " + PLANS,
                             subprocess_run=False)
            events = [json.loads(line) for line in result.out.splitlines()]
            session = session or events[0]["session_id"]
            errors += [e["message"] for e in events if e["type"] == "error"] + ([result.err] if result.code else [])
        chats = [(r.raw, s) for r, s in zip(server.requests, server.stats, strict=True) if r.raw.get("tools")]
        context = json.loads(cli.run("sessions", "context", str(session), "--json", subprocess_run=False).out)
        last_id = next(reversed(server.issued))
        last = {"summary": [{"text": "Both searches came back; answer."}], "encrypted_content": server.issued[last_id]}
    assert errors == [] and server.refusals == [] and server.failures == []
    assert len(chats) == 3 * TURNS
    previous: list[dict[str, Any]] = []
    for index, (body, _) in enumerate(chats):
        items = body["input"]
        assert items[:len(previous)] == previous, f"request {index} changed the prefix"
        sent = [item["id"] for item in items if item.get("type") == "reasoning"]
        assert len(sent) == index and set(sent) <= set(server.issued), (  # one from each earlier response
            f"request {index} did not send back every earlier reasoning item")
        for position, item in enumerate(items):  # each right before the item it produced
            if item.get("type") == "reasoning":
                following = items[position + 1]
                assert following.get("type") == "function_call" or following.get("role") == "assistant"
        previous = items
    estimator = TokenEstimator()  # the planner counts every reasoning item the next request sends back
    items = [i for i in previous if i.get("type") == "reasoning"] + [last]
    expected = sum(estimator.estimate_text("\n\n".join(p["text"] for p in i["summary"]))
                   + estimator.estimate_opaque(i["encrypted_content"]) for i in items)
    assert _reasoning_sent(tmp_path / "home", str(session)) == expected
    assert context["breakdown"]["reasoning"] > 0  # the gauge's row (its share of the calibrated total)
    later = [stats for _, stats in chats[3:]]
    cached = sum(s.cached_tokens for s in later) / sum(s.input_tokens for s in later)
    assert cached > 0.9, cached



def _reasoning_sent(home: Path, session_id: str) -> int:
    """The raw tokens of stored reasoning the session's next request sends back, as the app's planner counts them."""
    container = Container(Storage.open(home), FakeApiKeyStorage(), FakeAdapterFactory())
    try:
        ctx = container.contexts.load(session_id, strict=False)
        _, sent = container.planner.sent(ctx)
        return container.planner.reasoning_sent(ctx, sent)
    finally:
        container.close()
