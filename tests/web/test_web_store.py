"""A reply's web searches (sources, citations, the provider's blocks) and a session's choice are kept by the store."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from data.storage import Storage
from domain.models import Message, MessageType, Session
from domain.web import Citation, Source, WebSearchRecord, footnoted, record_from_json, record_to_json

AT = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)
RECORD = WebSearchRecord(
    queries=("weather paris",), sources=(Source("https://a.example/1", "A"), Source("https://b.example/2", "B")),
    citations=(Citation("https://b.example/2", "B", "it rains", 0, 12),), errors=("max_uses_exceeded",),
    blocks='[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"weather paris"}}]',
    provider_id="anthropic", model_id="claude-x",
)


def test_a_searched_reply_reads_back_with_its_record(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path)
    try:
        storage.sessions.create(Session("s", "t", None, AT, AT))
        stored = storage.messages.add(Message(id="m", session_id="s", type=MessageType.AI_RESPONSE,
                                              content="It rains.", created_at=AT, web=RECORD))
        assert storage.messages.get("m") == stored
        assert storage.messages.since("s", 0)[0].web == RECORD
    finally:
        storage.close()


def test_a_sessions_web_search_choice_is_stored(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path)
    try:
        session = storage.sessions.create(Session("s", "t", None, AT, AT))
        assert session.web_search is None
        storage.sessions.update(replace(session, web_search=True))
        stored = storage.sessions.get("s")
        assert stored is not None and stored.web_search is True
    finally:
        storage.close()


def test_numbered_sources_put_cited_ones_first_without_repeats() -> None:
    assert RECORD.numbered() == (Source("https://b.example/2", "B"), Source("https://a.example/1", "A"))
    assert record_from_json(record_to_json(RECORD)) == RECORD
    assert record_from_json("not json") is None


def test_markdown_footnotes_mark_each_cited_span_and_list_the_sources() -> None:
    record = WebSearchRecord(sources=(Source("https://a.example/1", "A"),),
                             citations=(Citation("https://b.example/2", "B", "rain", 0, 9),))
    assert footnoted("It rains. Cold too.", record) == (
        "It rains.[^1] Cold too.\n\n[^1]: [B](https://b.example/2)\n[^2]: [A](https://a.example/1)")
    assert footnoted("plain", None) == "plain"


def test_json_export_keeps_sources_and_citations_and_import_reads_them_back(tmp_path: Path) -> None:
    from domain.importers.palimpsest import read_palimpsest
    from domain.usecases.export_session import ExportSessionUseCase

    storage = Storage.open(tmp_path)
    try:
        storage.sessions.create(Session("s", "t", None, AT, AT))
        storage.messages.add(Message(id="u", session_id="s", type=MessageType.USER, content="Rain?", created_at=AT))
        storage.messages.add(Message(id="m", session_id="s", type=MessageType.AI_RESPONSE, content="It rains in Paris.",
                                     created_at=AT, web=RECORD))
        export = ExportSessionUseCase(storage.sessions, storage.messages)
        exported = export("s", "json")
        markdown = export("s", "markdown")
    finally:
        storage.close()
    assert "encrypted" not in exported and "srvtoolu_1" not in exported  # the provider's blocks stay home
    assert "It rains in Paris.[^1]" in markdown and "[^1]: [B](https://b.example/2)" in markdown
    imported = read_palimpsest(exported)
    reply = next(m for c in imported for m in c.messages if m.id == "m")
    assert reply.web == replace(RECORD, blocks=None)


def test_search_results_are_their_own_row_of_the_gauge_and_the_rows_add_up() -> None:
    from domain.context.estimator import TokenEstimator
    from domain.context.meter import measure_context

    searched = replace(RECORD, blocks='[{"type":"web_search_tool_result","content":[{"encrypted_content":"'
                       + "Eo" * 2_000 + '"}]}]')  # real pages' content runs to kilobytes
    messages = [Message(id="u", session_id="s", type=MessageType.USER, content="Rain?"),
                Message(id="m", session_id="s", type=MessageType.AI_RESPONSE, content="It rains.", web=searched)]
    status = measure_context(TokenEstimator(), system_prompt="Be brief.", summary=None, messages=messages)
    b = status.breakdown
    assert b.web_search > 0
    assert sum((b.system, b.summary, b.messages, b.tool_results, b.tools, b.reasoning, b.attachments,
                b.web_search)) == status.used
    pruned = measure_context(TokenEstimator(), system_prompt="Be brief.", summary=None,
                             messages=[messages[0], replace(messages[1], web=RECORD.pruned())])
    assert 0 < pruned.breakdown.web_search < b.web_search  # the sources listed as text: less than the blocks


def test_mcp_tools_that_search_the_web_are_told_apart_from_other_searches() -> None:
    from domain.web_support import search_tool_names

    offered = ["brave__brave_web_search", "searxng__search", "memory__search_nodes", "search_memory",
               "tavily__tavily-search", "files__read_file"]
    assert search_tool_names(offered) == ["brave__brave_web_search", "searxng__search", "tavily__tavily-search"]
