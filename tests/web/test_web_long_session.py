"""40 turns with a web search every other turn, through the real container, AsyncAnthropic and the fake Anthropic
server (which refuses search blocks dropped or altered) with a small window: no error, older searches pruned to text
with their sources, and the cache prefix kept between prune batches."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

from app.container import Container
from domain.events import ChatError, SourcesCited
from domain.web import WebSearchRecord
from tests.aiohttp_sessions import closing_adapters
from tests.cli.brain import SimulatedBrain
from tests.fakes import FakeApiKeyStorage
from tests.fakeservers import FakeAnthropicServer, Reply
from tests.fakeservers.brain import Answer, NormalizedRequest
from tests.fakeservers.web_search import Search

KEY = "sk-ant-web-40"
MODEL = "claude-web-12k"
WINDOW = 12_000
TURNS = 40


class SearchingBrain(SimulatedBrain):
    """The simulated session's brain; a chat turn whose message says SEARCH runs a search of three pages."""

    def respond(self, request: NormalizedRequest) -> Answer:
        answer = super().respond(request)
        last = request.messages[-1].text if request.messages else ""
        if isinstance(answer, Reply) and request.tool_names and "SEARCH" in last:
            n = last.split("#", 1)[1].split(" ", 1)[0]
            pages = tuple((f"https://tides{k}.example/{n}", f"Tide table {n}.{k}") for k in range(3))
            answer = replace(Reply.of_text(f"High tide {n} is at six."), searches=(Search(f"tide {n}", pages,
                                                                                          page_chars=1_200),))
        return answer


def _search_blocks(request: NormalizedRequest) -> int:
    return sum(1 for m in request.raw["messages"] if m["role"] == "assistant" and isinstance(m["content"], list)
               for b in m["content"] if b.get("type") == "server_tool_use")


def test_forty_turns_searching_every_other_one_never_error_prune_old_results_and_keep_the_cache(
        tmp_path: Path, monkeypatch) -> None:
    brain = SearchingBrain()
    with FakeAnthropicServer(brain, api_key=KEY, context_windows={MODEL: WINDOW}) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        c = Container.build(tmp_path / "home", keys=FakeApiKeyStorage({"anthropic": KEY}))
        try:
            c.add_model("anthropic", MODEL, WINDOW)
            session = c.create_session(provider_id="anthropic", model_id=MODEL)
            c.set_session_web_search(session.id, True)

            async def run() -> list[object]:
                events: list[object] = []
                for turn in range(TURNS):
                    ask = f"SEARCH #{turn} what is the tide today?" if turn % 2 == 0 else f"Turn {turn}: noted, go on."
                    async for event in c.send_message(session.id, ask, provider_id="anthropic", model_id=MODEL):
                        events.append(event)
                return events

            events = asyncio.run(closing_adapters(c, run()))
            stored = [m for m in c.storage.messages.snapshot(session.id) if m.web is not None]
        finally:
            c.close()
    assert [e for e in events if isinstance(e, ChatError)] == []
    cited = [e for e in events if isinstance(e, SourcesCited)]
    assert len(cited) == TURNS // 2 and len(stored) == TURNS // 2  # every searched reply kept its record
    assert all(isinstance(m.web, WebSearchRecord) and m.web.blocks for m in stored)  # stored whole, pruned per request
    chats = brain.chat_requests  # not the memory flush, the summaries or the title
    assert len(chats) == TURNS
    sent_whole = [_search_blocks(r) for r in chats]
    assert max(sent_whole) <= 2 + 4 - 1  # keep_last_web_searches + web_prune_batch - 1: the rest went as text
    last = json.dumps(chats[-1].raw["messages"])
    assert "Sources:\\n[1] Tide table" in last  # a pruned turn: its text with its sources listed
    assert max(s.input_tokens for s in server.stats) <= WINDOW
    turn_stats = [s for s in server.stats if s.stream and s.input_tokens > 0][-TURNS:]
    reads = sum(s.cached_tokens for s in turn_stats) / sum(s.input_tokens for s in turn_stats)
    assert reads >= 0.6, reads  # the prefix holds between prune batches (and compactions)
