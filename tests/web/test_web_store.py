"""A reply's web searches (sources, citations, the provider's blocks) and a session's choice are kept by the store."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from data.storage import Storage
from domain.models import Message, MessageType, Session
from domain.web import Citation, Source, WebSearchRecord, record_from_json, record_to_json

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
