"""Session management use cases: create, list, show (behind-boundary flag), export, search, delete/undo, rename, pin."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from domain.errors import InvalidInput, NotFound
from domain.models import Agent, Message, MessageType
from domain.usecases.create_session import CreateSessionUseCase
from domain.usecases.delete_session import DeleteSessionUseCase
from domain.usecases.export_session import ExportSessionUseCase
from domain.usecases.list_sessions import ListSessionsUseCase
from domain.usecases.pin_message import PinMessageUseCase
from domain.usecases.rename_session import RenameSessionUseCase
from domain.usecases.search_sessions import SearchSessionsUseCase
from domain.usecases.show_session import ShowSessionUseCase
from tests.fakes import FakeAgentRepository, FakeClock, FakeMessageRepository, FakeSessionRepository, make_session


def compacted_session() -> tuple[FakeSessionRepository, FakeMessageRepository]:
    sessions, messages = FakeSessionRepository(), FakeMessageRepository()
    sessions.create(make_session("s1", title="Tides", compacted_summary="FACT: tide at 06:12", compact_boundary=3,
                                 compaction_count=1))
    for i, (kind, text) in enumerate([(MessageType.USER, "first"), (MessageType.AI_RESPONSE, "one"),
                                      (MessageType.USER, "second 漢字"), (MessageType.AI_RESPONSE, "two")]):
        messages.add(Message(id=f"m{i}", session_id="s1", type=kind, content=text))
    return sessions, messages


def test_show_marks_the_messages_behind_the_compaction_boundary() -> None:
    sessions, messages = compacted_session()
    detail = ShowSessionUseCase(sessions, messages)("s1")
    assert [v.behind_boundary for v in detail.messages] == [True, True, False, False]
    assert detail.session.compacted_summary == "FACT: tide at 06:12"


def test_show_of_an_unknown_or_deleted_session_is_not_found() -> None:
    sessions, messages = compacted_session()
    with pytest.raises(NotFound):
        ShowSessionUseCase(sessions, messages)("nope")
    DeleteSessionUseCase(sessions, FakeClock())("s1")
    with pytest.raises(NotFound):
        ShowSessionUseCase(sessions, messages)("s1")


def test_json_export_holds_the_summary_and_every_original_message() -> None:
    sessions, messages = compacted_session()
    data = json.loads(ExportSessionUseCase(sessions, messages)("s1", "json"))
    assert data["compacted_summary"] == "FACT: tide at 06:12"
    assert [m["content"] for m in data["messages"]] == ["first", "one", "second 漢字", "two"]
    assert data["messages"][0]["behind_boundary"] is True
    for field in ("type", "content", "tool_name", "tool_output", "created_at", "behind_boundary"):
        assert field in data["messages"][0]


def test_markdown_export_shows_the_summary_and_flags_summarized_messages() -> None:
    sessions, messages = compacted_session()
    text = ExportSessionUseCase(sessions, messages)("s1", "markdown")
    assert text.startswith("# Tides")
    assert "## Current summary" in text and "FACT: tide at 06:12" in text
    assert "### User (summarized)" in text and "second 漢字" in text


def test_export_refuses_an_unknown_format() -> None:
    sessions, messages = compacted_session()
    with pytest.raises(InvalidInput, match="markdown or json"):
        ExportSessionUseCase(sessions, messages)("s1", "pdf")


def test_delete_is_soft_and_undo_restores_the_session() -> None:
    sessions, _ = compacted_session()
    delete = DeleteSessionUseCase(sessions, FakeClock())
    delete("s1")
    assert [s.id for s in ListSessionsUseCase(sessions)()] == []
    assert [s.id for s in ListSessionsUseCase(sessions)(include_deleted=True)] == ["s1"]
    restored = delete.undo("s1")
    assert restored.deleted_at is None
    assert [s.id for s in ListSessionsUseCase(sessions)()] == ["s1"]


def test_search_rejects_a_blank_query_and_finds_by_summary() -> None:
    sessions, _ = compacted_session()
    with pytest.raises(InvalidInput):
        SearchSessionsUseCase(sessions)("   ")
    assert [h.session_id for h in SearchSessionsUseCase(sessions)("tide")] == ["s1"]


def test_rename_collapses_whitespace_and_rejects_blank_titles() -> None:
    sessions, _ = compacted_session()
    rename = RenameSessionUseCase(sessions, FakeClock())
    assert rename("s1", "  Tide   tables ").title == "Tide tables"
    with pytest.raises(InvalidInput):
        rename("s1", " ")


def test_pin_and_unpin_a_message() -> None:
    _, messages = compacted_session()
    pin = PinMessageUseCase(messages)
    assert pin("m0").pinned is True
    assert [m.id for m in messages.pinned("s1")] == ["m0"]
    assert pin("m0", pinned=False).pinned is False
    with pytest.raises(NotFound):
        pin("missing")


def test_create_session_uses_the_default_agent_and_its_preferred_model() -> None:
    sessions = FakeSessionRepository()
    agents = FakeAgentRepository([Agent(id="a1", name="General", preferred_provider_id="anthropic",
                                        preferred_model_id="claude-x")])
    ids = iter(["new1", "new2", "new3"])
    create = CreateSessionUseCase(sessions, agents, FakeClock(), new_id=lambda: next(ids))
    session = create()
    assert (session.id, session.current_agent_id, session.current_provider_id) == ("new1", "a1", "anthropic")
    assert create(provider_id="openai", model_id="gpt-x").current_model_id == "gpt-x"
    other = create(provider_id="gemini")
    assert (other.current_provider_id, other.current_model_id) == ("gemini", None)
    with pytest.raises(NotFound):
        create(agent="nobody")


def test_a_message_exactly_at_the_boundary_is_sent_not_summarized() -> None:
    sessions, messages = compacted_session()
    sessions.update(replace(sessions.get("s1"), compact_boundary=1))  # type: ignore[type-var]
    detail = ShowSessionUseCase(sessions, messages)("s1")
    assert not any(v.behind_boundary for v in detail.messages)
