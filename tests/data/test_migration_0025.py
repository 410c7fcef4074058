"""Migration 0025 on a real SQLite file: the turn-lease table comes and goes; sessions and messages are kept, and a
lease goes with its session."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import migrations
from tests.data.test_migrations import _build_version_one, _url


def _tables(path: Path) -> set[str]:
    with closing(sqlite3.connect(path)) as db:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_0025_adds_the_turn_leases_and_downgrades_keeping_every_session_and_message(tmp_path: Path) -> None:
    path = tmp_path / "leases.db"
    _build_version_one(path)
    migrations.upgrade(_url(path), "0024")
    assert "turn_leases" not in _tables(path)
    migrations.upgrade(_url(path), "0025")
    with closing(sqlite3.connect(path)) as db:
        columns = {r[1]: (r[2], r[3], r[5]) for r in db.execute("PRAGMA table_info(turn_leases)")}
        assert columns == {"session_id": ("VARCHAR", 1, 1), "owner": ("VARCHAR", 1, 2), "holding": ("BOOLEAN", 1, 0),
                           "holder": ("VARCHAR", 1, 0), "host": ("VARCHAR", 1, 0), "pid": ("INTEGER", 1, 0),
                           "acquired_at": ("INTEGER", 1, 0), "expires_at": ("INTEGER", 1, 0)}
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("INSERT INTO turn_leases VALUES ('s1', 'o1', 1, 'process 1 on h', 'h', 1, 1, 2)")
        db.execute("INSERT INTO turn_leases VALUES ('s1', 'o3', 0, 'process 3 on h', 'h', 3, 1, 2)")  # in line
        db.execute("INSERT INTO turn_leases VALUES ('s2', 'o2', 1, 'process 2 on h', 'h', 2, 1, 2)")
        db.execute("DELETE FROM messages WHERE session_id = 's2'")
        db.execute("DELETE FROM sessions WHERE id = 's2'")
        db.commit()
        assert db.execute("SELECT session_id, owner FROM turn_leases ORDER BY owner").fetchall() == [
            ("s1", "o1"), ("s1", "o3")]  # s2's went with its session
        try:
            db.execute("INSERT INTO turn_leases VALUES ('ghost', 'o4', 1, 'p', 'h', 4, 1, 2)")
        except sqlite3.IntegrityError:
            pass
        else:
            raise AssertionError("a lease on no session was accepted")
        assert db.execute("SELECT count(*) FROM messages").fetchone() == (3,)
    assert migrations.current_revision(_url(path)) == "0025"
    migrations.downgrade(_url(path), "0024")
    assert "turn_leases" not in _tables(path)
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT count(*) FROM sessions").fetchone() == (1,)
        assert db.execute("SELECT count(*) FROM messages").fetchone() == (3,)
    migrations.upgrade(_url(path))
    assert migrations.current_revision(_url(path)) == migrations.head_revision()
