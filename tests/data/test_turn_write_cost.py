"""What a chat turn's writes cost SQLite at head: no stamping where no stamped field changes, no index that another
index already covers, and the session's change times kept exactly as before (each field when it changes)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import closing
from pathlib import Path

import pytest

import migrations
from data.sync.tables import SESSION_FIELDS

# the session fields sync stamps (SESSION_FIELDS, checked below), with a new value for each
_CHANGES = {"title": "'Renamed'", "current_agent_id": "'a2'", "is_active": "0", "deleted_at": "99",
            "created_at": "11", "updated_at": "21", "current_provider_id": "'p2'", "current_model_id": "'m2'",
            "reasoning": "'high'", "system_prompt": "'Be brief'", "compaction_count": "3"}


@pytest.fixture
def db(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    path = tmp_path / "head.db"
    migrations.upgrade(f"sqlite:///{path}")
    with closing(sqlite3.connect(path, isolation_level=None)) as con:
        con.execute("INSERT INTO sessions (id, title, message_count, is_active, created_at, updated_at)"
                    " VALUES ('s1', 'First', 0, 1, 10, 20)")
        yield con


def _traced(con: sqlite3.Connection, sql: str, params: Mapping[str, object] | tuple[object, ...] = ()) -> list[str]:
    """The statements SQLite runs for `sql`: the statement itself, then one entry per statement of a trigger."""
    seen: list[str] = []
    con.set_trace_callback(seen.append)
    try:
        con.execute(sql, params)
    finally:
        con.set_trace_callback(None)
    return seen


def _times(con: sqlite3.Connection) -> dict[str, int]:
    return dict(con.execute("SELECT field, ms FROM sync_field_times WHERE kind = 'session' AND key = 's1'"))


def test_adding_usage_to_a_session_runs_no_stamping_statement(db: sqlite3.Connection) -> None:
    before = _times(db)
    ran = _traced(db, "UPDATE sessions SET total_input_tokens = total_input_tokens + 5,"
                      " total_output_tokens = total_output_tokens + 2 WHERE id = 's1'")
    assert len(ran) == 1  # the update alone (0035's trigger ran 22 statements on every update)
    assert _times(db) == before


def test_a_stored_message_stamps_only_what_it_changes(db: sqlite3.Connection) -> None:
    from data.db.message_text import TOUCH

    ran = _traced(db, TOUCH, {"sid": "s1", "at": 30, "preview": "hello"})
    # the touch, then updated_at's trigger: its delete and its insert (with the clock's read)
    assert 1 < len(ran) <= 4
    assert set(_times(db)) == {"updated_at"}


def test_every_field_sync_stamps_has_its_own_trigger_and_a_case_here() -> None:
    """A field added to sync needs its trigger in a migration (0037's shape) and a case in _CHANGES."""
    assert set(_CHANGES) == set(SESSION_FIELDS)


@pytest.mark.parametrize("field", sorted(_CHANGES))
def test_each_session_field_is_stamped_when_it_changes_and_only_then(db: sqlite3.Connection, field: str) -> None:
    db.execute("UPDATE sessions SET message_count = 7, last_message_preview = 'x' WHERE id = 's1'")  # not synced
    assert _times(db) == {}
    db.execute("INSERT INTO sync_meta (key, value) VALUES ('clock', '\"9999999999999-0000-dev\"')")
    db.execute(f"UPDATE sessions SET {field} = {_CHANGES[field]} WHERE id = 's1'")
    assert _times(db) == {field: 10_000_000_000_000}  # just past the newest stamp this device has seen
    db.execute("UPDATE sync_meta SET value = '\"9999999999999-0001-dev\"' WHERE key = 'clock'")
    db.execute(f"UPDATE sessions SET {field} = {_CHANGES[field]}, message_count = 8 WHERE id = 's1'")  # unchanged
    assert _times(db) == {field: 10_000_000_000_000}


def test_no_index_of_messages_repeats_the_start_of_another(db: sqlite3.Connection) -> None:
    """Every insert writes a page of each index: one that another begins with serves nothing the other does not."""
    plain = [name for name, partial in db.execute(
        "SELECT name, partial FROM pragma_index_list('messages')") if not partial]
    columns = {name: [r[2] for r in db.execute(f"PRAGMA index_info({name})")] for name in plain}
    for name, cols in columns.items():
        for other, longer in columns.items():
            if other != name:
                assert longer[:len(cols)] != cols, f"{name} repeats the start of {other}"


def test_a_sessions_messages_are_still_read_and_deleted_through_an_index(db: sqlite3.Connection) -> None:
    for sql in ("SELECT id FROM messages WHERE session_id = 's1'", "DELETE FROM messages WHERE session_id = 's1'",
                "SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE session_id = 's1'"):
        plan = " ".join(str(row[-1]) for row in db.execute(f"EXPLAIN QUERY PLAN {sql}"))
        assert "USING" in plan and "INDEX" in plan, (sql, plan)
