"""End to end through the CLI: a 60-turn session across all three providers' fake servers with an 8K window.

Every command runs in a real `palimpsest` subprocess (about 2 minutes on a 2-core machine). For quicker local
iterations, PALIMPSEST_E2E_MIXED=1 runs only one of each setup command, the first turn, every provider switch and the
last turn as subprocesses, and the rest in-process through the same `app.main.main` with a fresh container each time.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from data.storage import Storage
from domain.context.truncator import truncation_marker
from domain.models import MessageType
from tests.cli.brain import SimulatedBrain
from tests.cli.harness import Cli, PageServer
from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.gemini_server import FakeGeminiServer
from tests.fakeservers.openai_server import FakeOpenAIServer

WINDOW = 8192
TURNS = 60
MODELS = {"anthropic": "claude-e2e-8k", "openai": "gpt-e2e-8k", "gemini": "gemini-e2e-8k"}
KEYS = {"anthropic": "sk-ant-e2e-KEY-4f1d9c", "openai": "sk-oai-e2e-KEY-7b2e11", "gemini": "AIza-e2e-KEY-0c3a55"}
FACTS = (
    "FACT: the boat is named Kestrel-7.",
    "FACT: the harbour code is HX-4471.",
    "FACT: the skipper is Ilse Marlowe.",
)
ALL_SUBPROCESS = os.environ.get("PALIMPSEST_E2E_MIXED") != "1"


def provider_for(turn: int) -> str:
    """Ten turns per provider, cycling anthropic -> openai -> gemini twice."""
    return ("anthropic", "openai", "gemini")[(turn // 10) % 3]


def message_for(turn: int, pages: str) -> str:
    """Facts first, then a mix of tool cues (100 KB pages), CJK text, JSON and plain chat."""
    if turn < len(FACTS):
        return f"Please keep this for the log. {FACTS[turn]} Thank you."
    if turn % 9 == 4:
        return f"FETCHREAD {pages}/text/{turn} and tell me what the readings say."
    if turn % 9 == 8:
        return f"FETCH {pages}/html/{turn} please, the tide table."
    if turn % 3 == 0:
        return f"潮の記録 {turn}: 今日の満潮は午前六時です。港は静かで、風は弱いです。" * 3
    if turn % 3 == 1:
        return f'Log entry {turn} as JSON: {{"turn": {turn}, "levels": [1.5, 2.5, 0.4], "note": "calm sea"}}'
    return f"Turn {turn}: the gulls are circling the breakwater again; nothing else new to report from the quay."


@pytest.fixture()
def servers() -> Iterator[tuple[SimulatedBrain, dict[str, Any], PageServer]]:
    brain = SimulatedBrain()
    with ExitStack() as stack:
        fakes: dict[str, Any] = {
            "anthropic": stack.enter_context(FakeAnthropicServer(brain, api_key=KEYS["anthropic"],
                                                                 context_windows={MODELS["anthropic"]: WINDOW})),
            "openai": stack.enter_context(FakeOpenAIServer(brain, api_key=KEYS["openai"],
                                                           context_windows={MODELS["openai"]: WINDOW})),
            "gemini": stack.enter_context(FakeGeminiServer(brain, api_key=KEYS["gemini"],
                                                           context_windows={MODELS["gemini"]: WINDOW})),
        }
        pages = stack.enter_context(PageServer().running())
        yield brain, fakes, pages


def test_sixty_turns_across_three_providers_never_error_and_keep_every_fact(
    tmp_path: Path, servers: tuple[SimulatedBrain, dict[str, Any], PageServer]
) -> None:
    brain, fakes, pages = servers
    home = tmp_path / "home"
    cli = Cli(home, tmp_path / "keychain" / "keys.json")
    (tmp_path / "keychain").mkdir()

    for provider, fake in fakes.items():
        first = provider == "anthropic"  # one of each setup command in a real subprocess, the rest in-process
        spawn = ALL_SUBPROCESS or first
        assert cli.run("providers", "set", provider, "--base-url", fake.base_url, subprocess_run=spawn).code == 0
        added = cli.run("models", "add", provider, MODELS[provider], "--context-window", str(WINDOW),
                        subprocess_run=spawn)
        assert added.code == 0, added.err
        stored = cli.run("keys", "set", provider, stdin=KEYS[provider] + "\n", subprocess_run=spawn)
        assert stored.code == 0, stored.err
    status = cli.run("keys", "status")
    assert "keychain" in status.out and not any(key in status.out + status.err for key in KEYS.values())

    session_id = ""
    events: list[dict[str, Any]] = []
    sent: list[str] = []
    for turn in range(TURNS):
        provider = provider_for(turn)
        text = message_for(turn, pages.url)
        where = ["-s", session_id] if session_id else []
        in_subprocess = ALL_SUBPROCESS or turn == 0 or turn == TURNS - 1 or provider != provider_for(turn - 1)
        result = cli.run("chat", *where, "-p", provider, "-m", MODELS[provider], "--jsonl", text,
                         subprocess_run=in_subprocess)
        lines = [json.loads(line) for line in result.out.splitlines()]
        assert result.code == 0, f"turn {turn} ({provider}) failed: {result.err}\n{lines[-3:]}"
        assert lines[0]["type"] == "session"
        if not session_id:
            session_id = lines[0]["session_id"]
            assert f"session: {session_id}" in result.err
        assert lines[0]["session_id"] == session_id
        errors = [e for e in lines if e["type"] == "error"]
        assert not errors, f"turn {turn} ({provider}): {errors}"
        assert any(e["type"] == "response_complete" for e in lines), f"turn {turn} has no reply"
        events += lines
        sent.append(text)

    compactions = [e for e in events if e["type"] == "compact_completed" and e["did_compact"]]
    assert len(compactions) >= 2
    assert all(e["tokens_after"] < e["tokens_before"] for e in compactions)
    tool_results = [e for e in events if e["type"] == "tool_result"]
    assert any(e["truncated"] for e in tool_results)
    assert {e["name"] for e in tool_results} >= {"http_request", "read_tool_result"}

    # facts of the first turns reach the model after the compactions, through the summary in the system prompt
    last_requests = brain.chat_requests[-5:]
    for request in last_requests:
        assert "Previous conversation summary:" in request.system
        assert not any("Please keep this for the log." in m.text for m in request.messages)
        for fact in FACTS:
            assert fact in request.system, f"{fact!r} missing from a late {request.flavour} request"
    # before compacting, the agent got its silent turn and saved a memory
    assert any(e["type"] == "memory_flush" and e["saved"] >= 1 for e in events)
    assert {r.flavour for r in brain.chat_requests} == {"anthropic", "openai", "gemini"}

    storage = Storage.open(home)
    try:
        stored = storage.messages.snapshot(session_id)
        session = storage.sessions.get(session_id)
        memories = storage.memories.list()
    finally:
        storage.close()
    assert session is not None and session.compaction_count >= 2
    assert [m.content for m in stored if m.type is MessageType.USER] == sent
    assert sum(1 for m in stored if m.type is MessageType.AI_RESPONSE and not m.incomplete) >= TURNS
    results = [m for m in stored if m.type is MessageType.TOOL_RESULT]
    assert len(results) == len(tool_results)
    for m in results:
        limit = 30_000 + len(truncation_marker(30_000, m.tool_output_original_chars or 0, m.id))
        assert len(m.tool_output or "") <= limit
    pages_read = [m.tool_output or "" for m in results if m.tool_name == "read_tool_result"]
    assert pages_read and all("characters 30000-32000 of" in text for text in pages_read)
    assert memories and all(m.source_session_id == session_id for m in memories)

    for path in home.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for key in KEYS.values():
                assert key.encode() not in data, f"a key leaked into {path}"
