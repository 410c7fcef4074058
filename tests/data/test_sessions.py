"""SessionRepository: listing, updates that cannot clobber counters, usage, compaction, delete/restore/purge."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import timedelta

import pytest

from data.storage import Storage
from domain.errors import InvalidInput, NotFound
from domain.models import CompactionRecord, MessageType, Session, Usage
from tests.data.conftest import T0, msg, new_session


def _record(session_id: str = "s1", boundary: int = 3) -> CompactionRecord:
    return CompactionRecord(session_id=session_id, created_at=T0, boundary=boundary, tokens_before=90_000,
                            tokens_after=20_000, summary_tokens=800, trigger="auto")


def test_sessions_are_listed_newest_first_and_soft_deleted_ones_only_on_request(storage: Storage) -> None:
    for i, sid in enumerate(("a", "b", "c")):
        new_session(storage, sid, minutes=i)
    storage.sessions.delete("b", T0)
    assert [s.id for s in storage.sessions.list()] == ["c", "a"]
    assert [s.id for s in storage.sessions.list(include_deleted=True)] == ["c", "b", "a"]


def test_restore_brings_a_soft_deleted_session_back(storage: Storage) -> None:
    new_session(storage)
    storage.sessions.delete("s1", T0)
    assert storage.sessions.get("s1").deleted_at == T0  # type: ignore[union-attr]
    storage.sessions.restore("s1")
    assert [s.id for s in storage.sessions.list()] == ["s1"]


def test_purge_removes_the_session_with_its_messages_archive_and_compactions(storage: Storage) -> None:
    new_session(storage)
    storage.messages.add(msg("t1", type=MessageType.TOOL_RESULT, tool_output="x"), full_output="xxxx")
    storage.sessions.apply_compaction("s1", summary="sum", boundary=1, record=_record())
    storage.sessions.purge("s1")
    assert storage.sessions.get("s1") is None
    assert storage.messages.get("t1") is None
    assert storage.messages.full_output("t1") is None
    assert storage.sessions.compactions("s1") == []
    assert storage.sessions.search("sum") == []


def test_creating_a_session_with_an_unknown_agent_is_not_found(storage: Storage) -> None:
    with pytest.raises(NotFound):
        storage.sessions.create(Session(id="s1", title="x", current_agent_id="ghost", created_at=T0, updated_at=T0))
    assert storage.sessions.get("s1") is None


def test_update_from_a_stale_copy_never_rolls_back_counters(storage: Storage) -> None:
    stale = new_session(storage)
    storage.messages.add(msg("m1"))
    storage.sessions.add_usage("s1", Usage(input_tokens=100, output_tokens=20))
    storage.sessions.apply_compaction("s1", summary="s", boundary=1, record=_record())
    updated = storage.sessions.update(replace(stale, title="Renamed", current_model_id="gpt-4o"))
    assert (updated.title, updated.current_model_id) == ("Renamed", "gpt-4o")
    assert (updated.message_count, updated.total_input_tokens, updated.compaction_count) == (1, 100, 1)


def test_update_can_reset_the_summary_and_boundary(storage: Storage) -> None:
    new_session(storage)
    compacted = storage.sessions.apply_compaction("s1", summary="s", boundary=4, record=_record())
    reset = storage.sessions.update(replace(compacted, compacted_summary=None, compact_boundary=None))
    assert (reset.compacted_summary, reset.compact_boundary, reset.compaction_count) == (None, None, 1)


def test_update_of_a_missing_session_is_not_found(storage: Storage) -> None:
    with pytest.raises(NotFound):
        storage.sessions.update(Session(id="ghost", title="x", current_agent_id=None, created_at=T0, updated_at=T0))


def test_add_usage_accumulates_from_many_threads_without_losing_any(storage: Storage) -> None:
    new_session(storage)

    def work() -> None:
        for _ in range(25):
            storage.sessions.add_usage("s1", Usage(input_tokens=10, output_tokens=2, cache_read_tokens=1))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    session = storage.sessions.get("s1")
    assert session is not None
    assert (session.total_input_tokens, session.total_output_tokens, session.total_cache_read_tokens) == (
        1000, 200, 100)


def test_negative_usage_is_refused(storage: Storage) -> None:
    new_session(storage)
    with pytest.raises(InvalidInput):
        storage.sessions.add_usage("s1", Usage(input_tokens=-1))
    assert storage.sessions.get("s1").total_input_tokens == 0  # type: ignore[union-attr]


def test_apply_compaction_stores_summary_boundary_count_flush_reset_and_log(storage: Storage) -> None:
    session = new_session(storage)
    storage.sessions.update(replace(session, flushed_in_compaction_cycle=True))
    first = storage.sessions.apply_compaction("s1", summary="one", boundary=3, record=_record(boundary=3))
    second = storage.sessions.apply_compaction("s1", summary="two", boundary=8, record=_record(boundary=8))
    assert (first.compaction_count, first.flushed_in_compaction_cycle) == (1, False)
    assert (second.compacted_summary, second.compact_boundary, second.compaction_count) == ("two", 8, 2)
    assert [c.boundary for c in storage.sessions.compactions("s1")] == [3, 8]
    assert storage.sessions.compactions("s1")[0] == replace(_record(boundary=3), summary="one")


@pytest.mark.parametrize(("summary", "boundary"), [("  ", 3), ("ok", -1)])
def test_a_blank_summary_or_negative_boundary_is_refused_and_changes_nothing(
    storage: Storage, summary: str, boundary: int
) -> None:
    new_session(storage)
    with pytest.raises(InvalidInput):
        storage.sessions.apply_compaction("s1", summary=summary, boundary=boundary, record=_record())
    session = storage.sessions.get("s1")
    assert session is not None and session.compaction_count == 0 and session.compacted_summary is None
    assert storage.sessions.compactions("s1") == []


def test_apply_compaction_on_a_missing_session_logs_nothing(storage: Storage) -> None:
    with pytest.raises(NotFound):
        storage.sessions.apply_compaction("ghost", summary="s", boundary=1, record=_record("ghost"))
    assert storage.sessions.compactions("ghost") == []


def test_timestamps_round_trip_to_the_microsecond(storage: Storage) -> None:
    at = T0 + timedelta(microseconds=123_457)
    storage.sessions.create(Session(id="s1", title="t", current_agent_id=None, created_at=at, updated_at=at))
    assert storage.sessions.get("s1").created_at == at  # type: ignore[union-attr]
