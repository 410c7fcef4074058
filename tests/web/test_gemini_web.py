"""Gemini's Grounding with Google Search through google-genai and the Gemini fake: the grounding metadata becomes
the reply's sources and citations (byte offsets read as characters); Gemini 2.x, which refuses Google Search beside
function declarations with a 400, is offered Google Search alone; a later turn sends the reply as text with sources."""

from __future__ import annotations

from dataclasses import replace

from domain.events import StreamEvent, TextDelta, UsageReported, WebSearched
from domain.models import ProviderType
from domain.web import WebSearchSettings
from tests.fakeservers import FakeGeminiServer, Reply, ScriptedBrain
from tests.fakeservers.web_search import Search, gemini_tool_refusal
from tests.providers.helpers import WEATHER, History, adapter_for, collect

PARIS = Search("météo paris", (("https://meteo.example/paris", "Paris forecast"),
                                ("https://news.example/rain", "Rain in Paris")))
ON = WebSearchSettings(enabled=True)


async def _turn(adapter, history: History, model: str) -> list[StreamEvent]:
    events = await collect(adapter.send_message_stream(
        model_id=model, system_prompt="Be brief.", messages=history.messages, tools=(WEATHER,),
        max_output_tokens=512, web_search=ON))
    record = next((e.record for e in events if isinstance(e, WebSearched)), None)
    history.ai("".join(e.text for e in events if isinstance(e, TextDelta)))
    history.messages[-1] = replace(history.messages[-1], web=record)
    return events


async def test_grounding_metadata_becomes_sources_and_citations_and_2x_gets_search_alone() -> None:
    brain = ScriptedBrain([replace(Reply.of_text("Il pleut à Paris."), searches=(PARIS,)), "De rien."])
    with FakeGeminiServer(brain) as fake:
        adapter = adapter_for(ProviderType.GEMINI, fake.base_url)
        history = History().user("Météo à Paris ?")
        events = await _turn(adapter, history, "gemini-2.5-flash")
        history.user("Merci")
        await _turn(adapter, history, "gemini-2.5-flash")
    assert fake.requests[0].raw["tools"] == [{"googleSearch": {}}]  # functions left out: 2.x refuses the pair
    record = next(e.record for e in events if isinstance(e, WebSearched))
    assert record.queries == ("météo paris",)
    assert [s.url for s in record.sources] == ["https://meteo.example/paris", "https://news.example/rain"]
    assert [(c.url, c.start, c.end) for c in record.citations] == [("https://meteo.example/paris", 0, 17)]
    assert next(e.usage for e in events if isinstance(e, UsageReported)).web_search_requests == 1
    later = fake.requests[1].raw["contents"][1]
    assert later["role"] == "model" and "Sources:\n[1] Paris forecast — https://meteo.example/paris" in str(
        later["parts"][0]["text"])


async def test_gemini_3_takes_search_beside_functions_and_2x_refuses_the_pair() -> None:
    brain = ScriptedBrain([replace(Reply.of_text("Rain."), searches=(PARIS,))])
    with FakeGeminiServer(brain) as fake:
        await _turn(adapter_for(ProviderType.GEMINI, fake.base_url), History().user("?"), "gemini-3-pro-preview")
    tools = fake.requests[0].raw["tools"]
    assert {"googleSearch": {}} in tools and any("functionDeclarations" in t for t in tools)
    both = {"tools": tools}
    assert gemini_tool_refusal("gemini-2.5-flash", both) == "Tool use with function calling is unsupported"
    assert gemini_tool_refusal("gemini-3-pro-preview", both) is None


async def test_a_gemini_2_reply_that_ran_two_queries_is_billed_one_grounded_prompt_and_gemini_3_two() -> None:
    other = Search("pluie paris", (("https://news.example/rain", "Rain in Paris"),))
    counts = {}
    for model in ("gemini-2.5-flash", "gemini-3-pro-preview"):
        brain = ScriptedBrain([replace(Reply.of_text("Il pleut à Paris."), searches=(PARIS, other))])
        with FakeGeminiServer(brain) as fake:
            events = await _turn(adapter_for(ProviderType.GEMINI, fake.base_url), History().user("Météo ?"), model)
        record = next(e.record for e in events if isinstance(e, WebSearched))
        usage = next(e.usage for e in events if isinstance(e, UsageReported))
        assert len(record.queries) == 2
        counts[model] = (record.billed_searches, usage.web_search_requests)
    assert counts == {"gemini-2.5-flash": (1, 1), "gemini-3-pro-preview": (2, 2)}
