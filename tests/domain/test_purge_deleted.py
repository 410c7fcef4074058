"""Conversations deleted more than 30 days ago are purged for good; recent deletions can still be restored."""

from __future__ import annotations

from datetime import timedelta

from domain.usecases.delete_session import DeleteSessionUseCase
from domain.usecases.purge_deleted import KEEP_DELETED, PurgeDeletedSessionsUseCase
from tests.fakes import FakeClock, FakeSessionRepository, make_session


def test_only_sessions_deleted_longer_ago_than_the_keep_period_are_purged() -> None:
    sessions, clock = FakeSessionRepository(), FakeClock()
    for sid in ("old", "recent", "kept"):
        sessions.create(make_session(sid))
    delete = DeleteSessionUseCase(sessions, clock)
    delete("old")
    clock.advance((KEEP_DELETED - timedelta(days=2)).total_seconds())
    delete("recent")
    clock.advance(timedelta(days=3).total_seconds())  # "old" was deleted 31 days ago, "recent" 3 days ago
    assert PurgeDeletedSessionsUseCase(sessions, clock)() == ["old"]
    ids = {s.id for s in sessions.list(include_deleted=True)}
    assert ids == {"recent", "kept"}
    assert delete.undo("recent").id == "recent"  # still restorable
    assert PurgeDeletedSessionsUseCase(sessions, clock)() == []
