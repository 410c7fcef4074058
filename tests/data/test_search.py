"""Full-text search over messages, tool output, titles and summaries; any user text is safe."""

from __future__ import annotations

from dataclasses import replace

import pytest

from data.db.fts import fts_query
from data.storage import Storage
from domain.models import CompactionRecord, MessageType
from domain.ports import MATCH_CLOSE, MATCH_OPEN
from tests.data.conftest import T0, msg, new_session


@pytest.fixture
def filled(storage: Storage) -> Storage:
    new_session(storage, "s1", "Trip planning", minutes=1)
    new_session(storage, "s2", "Database work", minutes=2)
    storage.messages.add(msg("m1", "s1", "We should visit Lisbon in spring"))
    storage.messages.add(msg("t1", "s2", "", type=MessageType.TOOL_RESULT, tool_output="ERROR: deadlock detected"))
    record = CompactionRecord("s2", T0, 1, 10, 5, 2, "manual")
    storage.sessions.apply_compaction("s2", summary="The user tuned postgres vacuum settings", boundary=1,
                                      record=record)
    return storage


def test_search_finds_message_content_with_a_snippet(filled: Storage) -> None:
    [hit] = filled.sessions.search("lisbon")
    assert (hit.session_id, hit.title) == ("s1", "Trip planning")
    assert f"{MATCH_OPEN}Lisbon{MATCH_CLOSE}" in hit.snippet  # the match marked, not bracketed


def test_search_finds_tool_output_titles_and_summaries(filled: Storage) -> None:
    assert [h.session_id for h in filled.sessions.search("deadlock")] == ["s2"]
    assert [h.session_id for h in filled.sessions.search("trip")] == ["s1"]
    assert [h.session_id for h in filled.sessions.search("vacuum")] == ["s2"]


def test_search_matches_word_prefixes_and_needs_every_word(filled: Storage) -> None:
    assert [h.session_id for h in filled.sessions.search("lisb spring")] == ["s1"]
    assert filled.sessions.search("lisbon deadlock") == []


def test_search_follows_edits_of_messages_and_titles(filled: Storage) -> None:
    message = filled.messages.get("m1")
    assert message is not None
    filled.messages.update(replace(message, content="Porto instead"))
    session = filled.sessions.get("s1")
    assert session is not None
    filled.sessions.update(replace(session, title="Holiday"))
    assert filled.sessions.search("lisbon") == []
    assert [h.session_id for h in filled.sessions.search("porto")] == ["s1"]
    assert [h.session_id for h in filled.sessions.search("holiday")] == ["s1"]


def test_soft_deleted_sessions_are_not_found(filled: Storage) -> None:
    filled.sessions.delete("s1", T0)
    assert filled.sessions.search("lisbon") == []


@pytest.mark.parametrize("text", ['foo"', "AND", "*", "", "   ", "NEAR(a b)", "a OR", '"unbalanced', "-x", "^", "é"])
def test_any_user_text_is_a_safe_query(filled: Storage, text: str) -> None:
    assert isinstance(filled.sessions.search(text), list)
    assert isinstance(filled.memories.search(text), list)


def test_operators_are_searched_as_words_not_syntax(filled: Storage) -> None:
    filled.messages.add(msg("m2", "s1", "this AND that"))
    assert [h.session_id for h in filled.sessions.search("AND")] == ["s1"]


def test_fts_query_quotes_each_word_and_drops_pure_punctuation() -> None:
    assert fts_query('say "hi" *') == '"say"* """hi"""*'
    assert fts_query(" * - ") is None
