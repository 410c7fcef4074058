"""End to end through the CLI (in-process, real container, storage and SDK adapters): Gemini 3 tool loops whose
signatures the fake checks, switches to a DeepSeek-style server and to another Gemini model and back. Every turn
succeeds; no Gemini signature reaches another model; each model gets its own reasoning back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from data.storage import Storage
from domain.models import MessageType, ReasoningKind
from domain.usecases.generate_title import TITLE_SYSTEM
from tests.cli.harness import Cli, PageServer
from tests.fakeservers import FakeGeminiServer, FakeOpenAIServer, NormalizedRequest, Reply, ToolCall, ToolResultPart
from tests.fakeservers.brain import Answer
from tests.fakeservers.gemini_rules import thinking_config

PRO, FLASH, DEEPSEEK = "gemini-3-pro-preview", "gemini-3-flash-preview", "deepseek-v4-pro"
GEMINI_KEY = "AIza-switch-KEY-1"
PLACEHOLDER_TEXT = "skip_thought_signature_validator"


class FetchBrain:
    """Thinks, then fetches the URL after FETCH with http_request, then answers; titles get a plain reply."""

    def respond(self, request: NormalizedRequest) -> Answer:
        """One answer per request (stateless, so thread-safe)."""
        words = request.last_user_text.split()
        if TITLE_SYSTEM in request.system or "FETCH" not in words:
            return Reply.of_text("Harbour log")
        tail = request.messages[-1]
        if tail.role == "tool" or any(isinstance(p, ToolResultPart) for p in tail.parts):
            return Reply(thinking=("The page is read.",), text_chunks=("It lists tide readings.",))
        url = words[words.index("FETCH") + 1]
        return Reply(thinking=("I should fetch ", url), tool_calls=(ToolCall("http_request", {"url": url}),))


@pytest.fixture()
def world(tmp_path: Path) -> Iterator[tuple[Cli, FakeGeminiServer, FakeOpenAIServer, str]]:
    brain = FetchBrain()
    with ExitStack() as stack:
        gemini = stack.enter_context(FakeGeminiServer(brain, api_key=GEMINI_KEY))
        deepseek = stack.enter_context(FakeOpenAIServer(brain, deepseek=True))
        pages = stack.enter_context(PageServer().running())
        (tmp_path / "keychain").mkdir()
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")
        for command in (("providers", "set", "gemini", "--base-url", gemini.base_url),
                        ("providers", "add", "DeepSeek", "--type", "openai_compatible", "--base-url",
                         deepseek.base_url),
                        ("models", "add", "gemini", PRO, "--context-window", "1048576"),
                        ("models", "add", "gemini", FLASH, "--context-window", "1048576"),
                        ("models", "add", "deepseek", DEEPSEEK, "--context-window", "131072")):
            done = cli.run(*command, subprocess_run=False)
            assert done.code == 0, done.err
        assert cli.run("keys", "set", "gemini", stdin=GEMINI_KEY + "\n", subprocess_run=False).code == 0
        yield cli, gemini, deepseek, pages.url


def test_gemini_tool_loops_survive_every_switch_and_no_signature_reaches_another_model(world):
    cli, gemini, deepseek, pages = world
    session = ""
    plan = [("gemini", PRO), ("gemini", PRO), ("deepseek", DEEPSEEK), ("gemini", FLASH), ("gemini", PRO),
            ("deepseek", DEEPSEEK)]
    issued_by: dict[str, list[str]] = {PRO: [], FLASH: []}
    for turn, (provider, model) in enumerate(plan):
        where = ["-s", session] if session else []
        fake = gemini if provider == "gemini" else deepseek
        logged, issued = len(fake.log), len(gemini.issued)
        result = cli.run("chat", *where, "-p", provider, "-m", model, "--jsonl", "--allow-tools", "--reasoning",
                         "high", f"FETCH {pages}/text/{turn} please", subprocess_run=False)
        lines = [json.loads(line) for line in result.out.splitlines()]
        assert result.code == 0, f"turn {turn} ({model}): {result.err}"
        assert not [e for e in lines if e["type"] in ("error", "notice")], f"turn {turn} ({model}): {lines}"
        assert [e["name"] for e in lines if e["type"] == "tool_result"] == ["http_request"]
        session = session or lines[0]["session_id"]
        if provider == "gemini":
            issued_by[model] += gemini.issued[issued:]
        others = [s for m, signatures in issued_by.items() if m != model for s in signatures]
        bodies = [r.body.decode() for r in fake.log[logged:] if r.method == "POST"]
        assert len(bodies) >= 2  # the call, then the answer after its result
        for signature in others:  # the SDK may send a signature URL-safe
            assert not any(variant in body for body in bodies
                           for variant in (signature, signature.replace("+", "-").replace("/", "_"))), model
    assert issued_by[PRO] and issued_by[FLASH]
    chats = [r for r in gemini.requests if "FETCH" in r.last_user_text and TITLE_SYSTEM not in r.system]
    assert chats and all(thinking_config(r.raw) == {"thinkingLevel": "HIGH", "includeThoughts": True} for r in chats)

    storage = Storage.open(cli.home)
    try:
        stored = storage.messages.snapshot(session)
    finally:
        storage.close()
    calls = [m for m in stored if m.type is MessageType.TOOL_CALL]
    assert len(calls) == len(plan)
    for call in calls:  # each call keeps the reasoning of the model that made it, bound to that model
        assert all(b.provider_id == call.provider_id and b.model_id == call.model_id for b in call.reasoning)
        if call.provider_id == "gemini":
            assert [b.kind for b in call.reasoning] == [ReasoningKind.SIGNATURE]
    replies = [m for m in stored if m.type is MessageType.AI_RESPONSE and m.provider_id == "deepseek"]
    assert any(b.kind is ReasoningKind.REASONING_CONTENT for m in replies for b in m.reasoning)
    # the last DeepSeek request carried its own earlier reasoning on its tool-call turns and empty ones elsewhere
    last = deepseek.requests[-1].raw["messages"]
    echoed = [m["reasoning_content"] for m in last if m["role"] == "assistant" and m.get("tool_calls")]
    assert len(echoed) == len(plan) and echoed.count("") == len(plan) - 2
    assert all(text.startswith("I should fetch ") for text in echoed if text)


def test_signatures_gemini_no_longer_accepts_are_dropped_and_the_turn_goes_on_with_a_notice(world):
    cli, gemini, _deepseek, pages = world
    first = cli.run("chat", "-p", "gemini", "-m", PRO, "--jsonl", "--allow-tools", f"FETCH {pages}/text/1",
                    subprocess_run=False)
    assert first.code == 0, first.err
    session = json.loads(first.out.splitlines()[0])["session_id"]
    gemini.signing_key = b"rotated"  # every signature given so far is now "Corrupted thought signature."
    logged = len(gemini.log)
    second = cli.run("chat", "-s", session, "-p", "gemini", "-m", PRO, "--jsonl", "--allow-tools",
                     f"FETCH {pages}/text/2", subprocess_run=False)
    lines = [json.loads(line) for line in second.out.splitlines()]
    assert second.code == 0, second.err
    assert not [e for e in lines if e["type"] == "error"]
    assert [e["name"] for e in lines if e["type"] == "tool_result"] == ["http_request"]
    assert any(e["type"] == "notice" and "reasoning" in e["message"] for e in lines), lines
    assert any(e["type"] == "response_complete" for e in lines)
    retried = [r.json() for r in gemini.log[logged:] if r.method == "POST"]
    assert any(PLACEHOLDER_TEXT in json.dumps(body) for body in retried)

