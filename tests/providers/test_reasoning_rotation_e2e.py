"""Issue 14's acceptance run: a 60-turn CLI session with `--reasoning high`, rotating Anthropic → Gemini 3 → a
DeepSeek-style compatible server → Anthropic every 15 turns, a tool call in every turn. Each fake enforces its
provider's reasoning rules (Anthropic signatures in a thinking tool loop, Gemini thought signatures on function
calls, DeepSeek reasoning_content on tool-call turns) and its window; the session compacts as it grows. 0 errors."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

from data.storage import Storage
from domain.models import MessageType
from tests.cli.harness import Cli, PageServer
from tests.fakeservers import FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer
from tests.fakeservers.anthropic_rules import model_info
from tests.providers.test_reasoning_switch_e2e import DEEPSEEK, GEMINI_KEY, PRO, FetchBrain

ANTHROPIC_KEY = "sk-ant-rotation-key-1"
HAIKU = "claude-haiku-4-5-20251001"
PLAN = [(provider, model) for provider, model in (("anthropic", HAIKU), ("gemini", PRO), ("deepseek", DEEPSEEK),
                                                  ("anthropic", HAIKU)) for _ in range(15)]


def test_sixty_turns_with_reasoning_high_across_three_providers_end_with_no_error(tmp_path: Path) -> None:
    brain = FetchBrain()
    with ExitStack() as stack:
        anthropic = stack.enter_context(FakeAnthropicServer(brain, api_key=ANTHROPIC_KEY, models=[model_info(HAIKU)],
                                                            context_windows={HAIKU: 200_000}))
        gemini = stack.enter_context(FakeGeminiServer(brain, api_key=GEMINI_KEY))
        deepseek = stack.enter_context(FakeOpenAIServer(brain, deepseek=True, context_windows={DEEPSEEK: 32_768}))
        pages = stack.enter_context(PageServer().running())
        (tmp_path / "keychain").mkdir()
        env = {"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "ANTHROPIC_BASE_URL": anthropic.base_url}
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", env)
        for command in (("providers", "set", "gemini", "--base-url", gemini.base_url),
                        ("providers", "add", "DeepSeek", "--type", "openai_compatible", "--base-url",
                         deepseek.base_url),
                        ("models", "add", "gemini", PRO, "--context-window", "1048576"),
                        ("models", "add", "deepseek", DEEPSEEK, "--context-window", "32768")):
            assert cli.run(*command, subprocess_run=False).code == 0
        assert cli.run("keys", "set", "gemini", stdin=GEMINI_KEY + "\n", subprocess_run=False).code == 0
        session, thinking, compactions = "", {"anthropic": 0, "gemini": 0, "deepseek": 0}, 0
        for turn, (provider, model) in enumerate(PLAN):
            where = ["-s", session] if session else []
            result = cli.run("chat", *where, "-p", provider, "-m", model, "--jsonl", "--allow-tools", "--reasoning",
                             "high", f"FETCH {pages.url}/text/{turn} please", subprocess_run=False)
            events = [json.loads(line) for line in result.out.splitlines()]
            assert result.code == 0, f"turn {turn} ({provider}/{model}): {result.err}"
            assert not [e for e in events if e["type"] in ("error", "notice")], f"turn {turn}: {events}"
            assert [e["name"] for e in events if e["type"] == "tool_result"] == ["http_request"], turn
            thinking[provider] += sum(1 for e in events if e["type"] == "thinking_delta")
            compactions += sum(1 for e in events if e["type"] == "compact_completed")
            session = session or events[0]["session_id"]
    assert all(count > 0 for count in thinking.values()), thinking  # every provider reasoned, visibly
    assert compactions >= 1  # the switch to the 32K server compacted first: the context engine kept it going
    storage = Storage.open(cli.home)
    try:
        stored = storage.messages.snapshot(session)
    finally:
        storage.close()
    assert sum(1 for m in stored if m.type is MessageType.USER) == 60  # every original kept
    assert sum(1 for m in stored if m.type is MessageType.TOOL_RESULT) == 60
    thinking_requests = [r for r in anthropic.requests if "thinking" in r.raw]
    assert thinking_requests and all(r.raw["thinking"]["type"] == "enabled" for r in thinking_requests)
