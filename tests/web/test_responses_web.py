"""OpenAI's Responses API web_search tool through the openai SDK and the Responses fake: web_search_call items and
url_citation annotations become the reply's sources and citations; a later turn (and a reasoning model's items)
goes back accepted, the searched reply as its text with its sources; a field the tool lacks is the API's 400."""

from __future__ import annotations

from dataclasses import replace

import openai
import pytest

from domain.events import ReasoningDone, StreamEvent, TextDelta, UsageReported, WebSearched
from domain.web import WebSearchSettings
from tests.fakeservers import Reply, ScriptedBrain
from tests.fakeservers.responses_server import FakeResponsesServer
from tests.fakeservers.web_search import Search
from tests.providers.helpers import History, collect
from tests.providers.test_responses import GPT5, responses_adapter, with_reasoning

PARIS = Search("weather paris", (("https://meteo.example/paris", "Paris forecast"),
                                  ("https://news.example/rain", "Rain in Paris")))
ON = WebSearchSettings(enabled=True)


async def _turn(adapter, history: History, web: WebSearchSettings | None = ON) -> list[StreamEvent]:
    events = await collect(adapter.send_message_stream(
        model_id="gpt-5-mini", system_prompt="Be brief.", messages=history.messages, tools=(),
        max_output_tokens=512, capabilities=GPT5, cache_key="s1", web_search=web))
    record = next((e.record for e in events if isinstance(e, WebSearched)), None)
    history.ai("".join(e.text for e in events if isinstance(e, TextDelta)))
    history.messages[-1] = replace(history.messages[-1], web=record)
    return events


async def test_a_searched_reply_comes_with_its_sources_citations_and_counted_searches() -> None:
    brain = ScriptedBrain([replace(Reply.of_text("It rains in Paris."), searches=(PARIS,)), "You're welcome."])
    with FakeResponsesServer(brain) as fake:
        adapter = responses_adapter(fake.base_url)
        history = History().user("Weather in Paris?")
        events = await _turn(adapter, history)
        history.user("Thanks")
        await _turn(adapter, history)
    first = fake.requests[0].raw
    assert first["tools"] == [{"type": "web_search"}]
    assert "web_search_call.action.sources" in first["include"]
    record = next(e.record for e in events if isinstance(e, WebSearched))
    assert record.queries == ("weather paris",)
    assert [s.url for s in record.sources] == ["https://meteo.example/paris", "https://news.example/rain"]
    assert [(c.url, c.title, c.start, c.end) for c in record.citations] == [
        ("https://meteo.example/paris", "Paris forecast", 0, 18)]
    assert next(e.usage for e in events if isinstance(e, UsageReported)).web_search_requests == 1
    later = [item for item in fake.requests[1].raw["input"] if item.get("role") == "assistant"]
    assert later == [{"role": "assistant", "content": "It rains in Paris.\n\nSources:\n[1] Paris forecast — "
                      "https://meteo.example/paris\n[2] https://news.example/rain"}]


async def test_allowed_domains_are_the_tools_filter_and_a_failed_search_is_an_error_code() -> None:
    brain = ScriptedBrain([replace(Reply.of_text("Hm."), searches=(PARIS, Search("x", error="unavailable")))])
    with FakeResponsesServer(brain) as fake:
        events = await _turn(responses_adapter(fake.base_url), History().user("?"),
                             WebSearchSettings(True, allowed_domains=("meteo.example",)))
    assert fake.requests[0].raw["tools"] == [{"type": "web_search",
                                              "filters": {"allowed_domains": ["meteo.example"]}}]
    record = next(e.record for e in events if isinstance(e, WebSearched))
    assert [s.url for s in record.sources] == ["https://meteo.example/paris"] and record.errors == ("unavailable",)


async def test_a_field_the_tool_does_not_have_is_refused_with_the_apis_400() -> None:
    with FakeResponsesServer(ScriptedBrain(["x"])) as fake:
        adapter = responses_adapter(fake.base_url)
        with pytest.raises(openai.BadRequestError) as caught:
            await adapter._client.responses.create(
                model="gpt-5-mini", input="hi", stream=True,
                tools=[{"type": "web_search", "blocked_domains": ["a.example"]}])  # type: ignore[list-item]
    assert "Unknown parameter: 'tools[0].blocked_domains'" in str(caught.value)


async def test_a_reasoning_models_searched_turn_goes_back_without_the_search_call_and_the_reasoning_behind_it() -> None:
    """The API pairs a reasoning item with the web_search_call it produced: either both go back or neither (a
    reasoning item alone is the 400 "…without its required following item"). Palimpsest sends neither, and the
    reasoning that produced the reply's text goes back in its place."""
    brain = ScriptedBrain([replace(Reply(thinking=("Checking the sky.",), text_chunks=("It rains in Paris.",)),
                                   searches=(PARIS,)), "You're welcome."])
    with FakeResponsesServer(brain) as fake:
        adapter = responses_adapter(fake.base_url)
        history = History().user("Weather in Paris?")
        events = await _turn(adapter, history)
        with_reasoning(history, len(history.messages) - 1, events)
        history.user("Thanks")
        second = await _turn(adapter, history)
    assert fake.refusals == [] and "".join(e.text for e in second if isinstance(e, TextDelta)) == "You're welcome."
    searched_by = set(fake.searched_after)
    sent = fake.requests[1].raw["input"]
    reasoning = [item["id"] for item in sent if item.get("type") == "reasoning"]
    assert len(reasoning) == 1 and reasoning[0] not in searched_by  # the reply's own reasoning, not the search's
    assert not [item for item in sent if item.get("type") == "web_search_call"]
    thought = [e for e in events if isinstance(e, ReasoningDone)]
    assert "".join(e.block.text for e in thought) == "Checking the sky."  # both still shown


async def test_the_fake_refuses_a_search_call_without_its_reasoning_and_reasoning_without_its_search_call() -> None:
    with FakeResponsesServer(ScriptedBrain([replace(Reply.of_text("Rain."), searches=(PARIS,)), "Yes."])) as fake:
        adapter = responses_adapter(fake.base_url)
        await _turn(adapter, History().user("Weather in Paris?"))
        [(rs, ws)] = fake.searched_after.items()
        user = {"role": "user", "content": "Weather in Paris?"}
        call = {"id": ws, "type": "web_search_call", "status": "completed",
                "action": {"type": "search", "query": "weather paris"}}
        alone = {"id": rs, "type": "reasoning", "summary": [], "encrypted_content": fake.issued[rs]}
        for given, wording in (([user, call], f"Item '{ws}' of type 'web_search_call' was provided without its "
                                               f"required 'reasoning' item: '{rs}'."),
                               ([user, alone, {"role": "assistant", "content": "Rain."}],
                                f"Item '{rs}' of type 'reasoning' was provided without its required following item.")):
            with pytest.raises(openai.BadRequestError) as caught:
                await adapter._client.responses.create(model="gpt-5-mini", input=given, store=False)  # type: ignore[arg-type]
            assert caught.value.body == {"message": wording, "type": "invalid_request_error", "param": "input",
                                         "code": None}
        accepted = await adapter._client.responses.create(model="gpt-5-mini", input=[user, alone, call],  # type: ignore[list-item]
                                                          store=False)
    assert accepted.status == "completed"
