"""Anthropic's web fetch server tool (web_fetch_20250910) through AsyncAnthropic and the fake: offered beside web
search where the model takes it, its server_tool_use / web_fetch_tool_result blocks recorded (the fetched page a
source) and sent back unchanged on the next turn, and the fake's rules (only a URL already in the conversation is
fetched; a dropped result is refused with the API's 400)."""

from __future__ import annotations

import json
from dataclasses import replace

from data.providers.anthropic_shape import anthropic_request
from data.registry import load_registry
from domain.events import StreamEvent, TextDelta, UsageReported, WebSearched
from domain.models import ProviderType
from domain.provider_ports import ModelApiAdapter
from domain.web import WebSearchRecord, WebSearchSettings
from tests.fakeservers import FakeAnthropicServer, Reply, ScriptedBrain
from tests.fakeservers.web_fetch import Fetch
from tests.fakeservers.web_search import Search, blocks_refusal
from tests.providers.helpers import History, adapter_for, collect

MODEL = "claude-test-1"
ON = WebSearchSettings(enabled=True, max_uses=3)
PARIS = Search("weather paris today", (("https://meteo.example/paris", "Paris forecast"),))
PAGE = Fetch("https://meteo.example/paris", "Paris forecast", "Rain all day, 14 degrees.")


async def _turn(adapter: ModelApiAdapter, history: History) -> list[StreamEvent]:
    events = await collect(adapter.send_message_stream(
        model_id=MODEL, system_prompt="Be brief.", messages=history.messages, tools=(), max_output_tokens=512,
        web_search=ON))
    record = next((e.record for e in events if isinstance(e, WebSearched)), None)
    history.ai("".join(e.text for e in events if isinstance(e, TextDelta)))
    history.messages[-1] = replace(history.messages[-1], web=record)
    return events


def _record(events: list[StreamEvent]) -> WebSearchRecord:
    return next(e.record for e in events if isinstance(e, WebSearched))


async def test_web_fetch_is_offered_beside_search_and_a_fetched_page_is_a_source_sent_back_unchanged() -> None:
    fetched = replace(Reply.of_text("Rain all day in Paris."), searches=(PARIS,), fetches=(PAGE,))
    with FakeAnthropicServer(ScriptedBrain([fetched, "You're welcome."])) as fake:
        adapter = adapter_for(ProviderType.ANTHROPIC, fake.base_url)
        history = History().user("Weather in Paris?")
        events = await _turn(adapter, history)
        history.user("Thanks")
        await _turn(adapter, history)
    tools = {t["type"]: t for t in fake.requests[0].raw["tools"]}
    assert tools["web_fetch_20250910"] == {"type": "web_fetch_20250910", "name": "web_fetch", "max_uses": 3,
                                           "citations": {"enabled": True}}
    assert "web_search_20250305" in tools
    record = _record(events)
    kinds = [b["type"] for b in json.loads(record.blocks or "")]
    assert kinds == ["server_tool_use", "web_search_tool_result", "server_tool_use", "web_fetch_tool_result", "text"]
    assert record.queries == ("weather paris today",)  # a fetch is no search (it is not billed per use)
    assert [(s.url, s.title) for s in record.sources] == [("https://meteo.example/paris", "Paris forecast")] * 2
    assert next(e.usage for e in events if isinstance(e, UsageReported)).web_search_requests == 1
    assert fake.requests[1].raw["messages"][1]["content"] == json.loads(record.blocks or "")


async def test_the_fake_fetches_only_a_url_already_in_the_conversation() -> None:
    unseen = replace(Reply.of_text("I could not read it."), fetches=(Fetch("https://elsewhere.example/x"),))
    with FakeAnthropicServer(ScriptedBrain([unseen])) as fake:
        events = await _turn(adapter_for(ProviderType.ANTHROPIC, fake.base_url), History().user("Read a page"))
    assert _record(events).errors == ("url_not_in_prior_context",)


async def test_the_fake_refuses_a_turn_whose_fetch_result_was_dropped() -> None:
    fetched = replace(Reply.of_text("Rain all day."), fetches=(PAGE,))
    with FakeAnthropicServer(ScriptedBrain([fetched])) as fake:
        history = History().user("Read https://meteo.example/paris")
        record = _record(await _turn(adapter_for(ProviderType.ANTHROPIC, fake.base_url), history))
    blocks = json.loads(record.blocks or "")
    body = {"model": MODEL, "max_tokens": 100, "messages": [
        {"role": "user", "content": "Read https://meteo.example/paris"},
        {"role": "assistant", "content": [blocks[0], blocks[2]]}, {"role": "user", "content": "Thanks"}]}
    assert blocks_refusal(body) == (
        f"messages.1: `web_fetch` tool use with id `{blocks[0]['id']}` was found without a corresponding "
        "`web_fetch_tool_result` block")


def test_a_model_without_web_fetch_is_offered_search_alone() -> None:
    caps = load_registry().capabilities("claude-3-7-sonnet-20250219")
    assert caps is not None and caps.web_search is True and caps.web_fetch is False
    request = anthropic_request(model_id="claude-3-7-sonnet-20250219", system_prompt=None, messages=(), tools=(),
                                max_output_tokens=100, capabilities=caps, web_search=ON)
    assert [t["type"] for t in request["tools"]] == ["web_search_20250305"]


async def test_a_passage_cited_from_a_fetched_page_is_kept_as_a_citation_of_that_page() -> None:
    fetched = replace(Reply.of_text("Rain all day in Paris."), fetches=(PAGE,))
    with FakeAnthropicServer(ScriptedBrain([fetched, "You're welcome."])) as fake:
        adapter = adapter_for(ProviderType.ANTHROPIC, fake.base_url)
        history = History().user("Read https://meteo.example/paris")
        events = await _turn(adapter, history)
        history.user("Thanks")
        await _turn(adapter, history)
    record = _record(events)
    assert [(c.url, c.title, c.cited_text, c.start, c.end) for c in record.citations] == [
        ("https://meteo.example/paris", "Paris forecast", "Rain all day, 14 degrees.", 0, 22)]
    text = next(b for b in json.loads(record.blocks or "") if b["type"] == "text")
    assert text["citations"][0]["type"] == "char_location"  # the block goes back as it came
    assert fake.requests[1].raw["messages"][1]["content"] == json.loads(record.blocks or "")
