"""Anthropic's web search server tool through AsyncAnthropic and the fake server (which answers with the API's search
blocks and refuses a later turn whose blocks were dropped or altered, with the API's 400)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from domain.errors import ProviderError
from domain.events import StreamEvent, TextDelta, UsageReported, WebSearched
from domain.models import ProviderType
from domain.provider_ports import ModelApiAdapter
from domain.web import WebSearchRecord, WebSearchSettings
from tests.fakeservers import FakeAnthropicServer, Reply, ScriptedBrain
from tests.fakeservers.web_search import Search, blocks_refusal
from tests.providers.helpers import History, adapter_for, collect

ANTHROPIC = ProviderType.ANTHROPIC
MODEL = "claude-test-1"
ON = WebSearchSettings(enabled=True, max_uses=3)
PARIS = Search("weather paris today", (("https://meteo.example/paris", "Paris forecast"),
                                        ("https://news.example/rain", "Rain in Paris")))


def searched(text: str, *searches: Search) -> Reply:
    return replace(Reply.of_text(text), searches=searches)


async def _turn(adapter: ModelApiAdapter, history: History, web: WebSearchSettings | None = ON) -> list[StreamEvent]:
    events = await collect(adapter.send_message_stream(
        model_id=MODEL, system_prompt="Be brief.", messages=history.messages, tools=(), max_output_tokens=512,
        web_search=web))
    record = next((e.record for e in events if isinstance(e, WebSearched)), None)
    history.ai("".join(e.text for e in events if isinstance(e, TextDelta)))
    history.messages[-1] = replace(history.messages[-1], web=record)
    return events


def _record(events: list[StreamEvent]) -> WebSearchRecord:
    return next(e.record for e in events if isinstance(e, WebSearched))


async def test_a_searched_reply_comes_with_its_sources_citations_and_counted_searches() -> None:
    brain = ScriptedBrain([searched("It rains in Paris today.", PARIS)])
    with FakeAnthropicServer(brain) as fake:
        events = await _turn(adapter_for(ANTHROPIC, fake.base_url), History().user("Weather in Paris?"))
    tool = fake.requests[0].raw["tools"][-1]
    assert tool == {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
    record = _record(events)
    assert record.queries == ("weather paris today",)
    assert [s.url for s in record.sources] == ["https://meteo.example/paris", "https://news.example/rain"]
    assert [(c.url, c.title, c.cited_text, c.start, c.end) for c in record.citations] == [
        ("https://meteo.example/paris", "Paris forecast", "It rains in Paris today.", 0, 24)]
    assert [b["type"] for b in json.loads(record.blocks or "")] == ["server_tool_use", "web_search_tool_result",
                                                                    "text"]
    usage = next(e.usage for e in events if isinstance(e, UsageReported))
    assert usage.web_search_requests == 1


async def test_later_turns_send_the_search_blocks_back_unchanged_and_the_fake_accepts_them() -> None:
    brain = ScriptedBrain([searched("It rains in Paris today.", PARIS), "You're welcome."])
    with FakeAnthropicServer(brain) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        history = History().user("Weather in Paris?")
        first = _record(await _turn(adapter, history))
        history.user("Thanks")
        await _turn(adapter, history)
    sent = fake.requests[1].raw["messages"][1]["content"]
    assert sent == json.loads(first.blocks or "")


async def _first_request_blocks() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    brain = ScriptedBrain([searched("It rains in Paris today.", PARIS)])
    with FakeAnthropicServer(brain) as fake:
        history = History().user("Weather in Paris?")
        record = _record(await _turn(adapter_for(ANTHROPIC, fake.base_url), history))
    body = {"model": MODEL, "max_tokens": 100, "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": json.loads(record.blocks or "")},
        {"role": "user", "content": "Thanks"}]}
    return body, body["messages"][1]["content"]


async def test_the_fake_refuses_a_turn_whose_search_blocks_were_dropped_or_altered() -> None:
    body, blocks = await _first_request_blocks()
    assert blocks_refusal(body) is None
    without_result = {**body, "messages": [body["messages"][0], {"role": "assistant", "content": [blocks[0],
                                                                                                      blocks[2]]},
                                           body["messages"][2]]}
    # the API's wording (AnswerDotAI/lisette#108 quotes a real 400 body): the message index, then the tool use's id
    assert blocks_refusal(without_result) == (
        f"messages.1: `web_search` tool use with id `{blocks[0]['id']}` was found without a corresponding "
        "`web_search_tool_result` block")
    altered = json.loads(json.dumps(body))
    altered["messages"][1]["content"][1]["content"][0]["encrypted_content"] += "x"
    assert "Invalid encrypted content" in str(blocks_refusal(altered))
    cited_only = {**body, "messages": [body["messages"][0], {"role": "assistant", "content": [blocks[2]]},
                                       body["messages"][2]]}
    assert "Invalid encrypted index" in str(blocks_refusal(cited_only))
    plain = {**body, "messages": [body["messages"][0], {"role": "assistant", "content": "It rains."},
                                  body["messages"][2]]}
    assert blocks_refusal(plain) is None  # the whole turn as plain text is accepted (the pruned form)


async def test_an_altered_block_sent_back_is_refused_with_the_apis_400() -> None:
    brain = ScriptedBrain([searched("It rains in Paris today.", PARIS), "ok"])
    with FakeAnthropicServer(brain) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        history = History().user("Weather in Paris?")
        record = _record(await _turn(adapter, history))
        tampered = (record.blocks or "").replace('"encrypted_content":"Eo', '"encrypted_content":"Xo', 1)
        history.messages[-1] = replace(history.messages[-1], web=replace(record, blocks=tampered))
        history.user("Thanks")
        with pytest.raises(ProviderError) as caught:
            await _turn(adapter, history)
    assert "Invalid encrypted content" in str(caught.value)


async def test_search_errors_come_back_as_the_apis_error_codes() -> None:
    brain = ScriptedBrain([searched("Sorry, search failed.", Search("a", error="too_many_requests"),
                                    Search("b", error="unavailable"), PARIS, PARIS)])
    with FakeAnthropicServer(brain) as fake:
        events = await _turn(adapter_for(ANTHROPIC, fake.base_url), History().user("?"))
    record = _record(events)
    assert record.errors == ("too_many_requests", "unavailable", "max_uses_exceeded")  # max_uses=3: the 4th
    assert next(e.usage for e in events if isinstance(e, UsageReported)).web_search_requests == 3


async def test_domains_limit_the_results_and_the_tool_names_them() -> None:
    brain = ScriptedBrain([searched("Rain.", PARIS)])
    with FakeAnthropicServer(brain) as fake:
        events = await _turn(adapter_for(ANTHROPIC, fake.base_url), History().user("?"),
                             WebSearchSettings(True, 2, blocked_domains=("news.example",)))
    assert fake.requests[0].raw["tools"][-1]["blocked_domains"] == ["news.example"]
    assert [s.url for s in _record(events).sources] == ["https://meteo.example/paris"]


async def test_without_web_search_an_earlier_searched_turn_goes_as_text_with_its_sources() -> None:
    brain = ScriptedBrain([searched("It rains in Paris today.", PARIS), "ok"])
    with FakeAnthropicServer(brain) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        history = History().user("Weather in Paris?")
        await _turn(adapter, history)
        history.user("Thanks")
        await _turn(adapter, history, web=None)
    second = fake.requests[1].raw
    assert "tools" not in second
    assert second["messages"][1]["content"] == [{"type": "text", "text": (
        "It rains in Paris today.\n\nSources:\n[1] Paris forecast — https://meteo.example/paris\n"
        "[2] Rain in Paris — https://news.example/rain")}]


async def test_the_users_location_goes_with_the_tool_and_a_bad_one_is_the_apis_400() -> None:
    from domain.settings import ContextSettings

    located = ContextSettings(web_search=True, web_user_location="city=Brest, country=FR, planet=Earth").web
    brain = ScriptedBrain([searched("Rain.", PARIS), "x"])
    with FakeAnthropicServer(brain) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        await _turn(adapter, History().user("?"), located)
        assert fake.requests[0].raw["tools"][-1]["user_location"] == {"type": "approximate", "city": "Brest",
                                                                      "country": "FR"}
        with pytest.raises(ProviderError) as caught:
            await _turn(adapter, History().user("?"), replace(located, user_location=(("country", "France"),)))
    assert "user_location.country: String should have at most 2 characters" in str(caught.value)


async def test_a_paused_server_tool_loop_is_continued_by_sending_the_turn_back_as_it_came() -> None:
    paused = replace(Reply(), searches=(PARIS,), stop_reason="pause_turn")  # type: ignore[arg-type]
    rest = replace(Reply.of_text("It rains in Paris today."), searches=(Search("paris rain radar", (
        ("https://radar.example/paris", "Rain radar"),)),))
    brain = ScriptedBrain([paused, rest])
    with FakeAnthropicServer(brain) as fake:
        events = await _turn(adapter_for(ANTHROPIC, fake.base_url), History().user("Weather in Paris?"))
    _first, second = (r.raw for r in fake.requests)
    sent = second["messages"][-1]
    assert sent["role"] == "assistant"
    assert [b["type"] for b in sent["content"]] == ["server_tool_use", "web_search_tool_result"]
    record = _record(events)
    assert record.queries == ("weather paris today", "paris rain radar")
    assert [b["type"] for b in json.loads(record.blocks or "")] == [
        "server_tool_use", "web_search_tool_result", "server_tool_use", "web_search_tool_result", "text"]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "It rains in Paris today."
    usage = next(e.usage for e in events if isinstance(e, UsageReported))
    assert usage.web_search_requests == 2 and usage.input_tokens > fake.stats[0].input_tokens
