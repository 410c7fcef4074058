"""The turn with web search on (through the real container and a scripted adapter): the adapter is asked for its
search with the settings in force, the reply's record is stored and reported as SourcesCited, and an adapter without
a search of its own gets the turn all the same, with a plain notice."""

from __future__ import annotations

from pathlib import Path

from app.container import Container
from domain.events import Notice, SourcesCited, StreamDone, TextDelta, UsageReported, WebSearched
from domain.models import Usage
from domain.web import Source, WebSearchRecord
from tests.fakes_turn import FakeAdapterFactory, reply

PROVIDER, MODEL = "anthropic", "claude-sonnet-4-6"
RECORD = WebSearchRecord(queries=("q",), sources=(Source("https://a.example/", "A"),), provider_id=PROVIDER,
                         model_id=MODEL)


async def test_a_turn_asks_for_search_when_on_stores_the_record_and_reports_the_sources(tmp_path: Path) -> None:
    factory = FakeAdapterFactory(default_completion="A title")
    c = Container.build(tmp_path / "home", adapter_factory=factory)
    try:
        c.set_api_key(PROVIDER, "sk-ant-test")
        sid = c.create_session(provider_id=PROVIDER, model_id=MODEL).id
        adapter = factory.adapter(PROVIDER)
        adapter.scripts.append(reply("plain"))
        adapter.scripts.append([TextDelta("Found it."), WebSearched(RECORD),
                                UsageReported(Usage(10, 5, web_search_requests=1)), StreamDone("end_turn")])
        first = [e async for e in c.send_message(sid, "hi")]
        c.set_session_web_search(sid, True)
        second = [e async for e in c.send_message(sid, "search it")]
        stored = [m for m in c.storage.messages.snapshot(sid) if m.web is not None]
    finally:
        c.close()
    assert adapter.web_searches[0] is None and adapter.web_searches[1] is not None
    assert adapter.web_searches[1].enabled and adapter.web_searches[1].max_uses == 5
    assert not [e for e in first if isinstance(e, SourcesCited | Notice)]
    cited = [e for e in second if isinstance(e, SourcesCited)]
    assert len(cited) == 1 and cited[0].record == RECORD and stored[0].web == RECORD
    notices = [e.message for e in second if isinstance(e, Notice)]
    assert any("has no web search of its own" in n for n in notices)  # the scripted adapter has none
