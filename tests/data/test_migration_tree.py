"""Migration 0017 on a populated 0014 database: every session becomes one branch, no row is lost, the summary in
force is recorded on its checkpoint, and the upgraded store reads the same conversation."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import migrations
from data.storage import Storage
from domain.models import Message, MessageType


def _url(path: Path) -> str:
    return f"sqlite:///{path}"


def _build_0014(path: Path) -> None:
    """Two sessions at 0014: s1 compacted (boundary 5, one logged compaction) with a retried partial reply taken off
    its path; s2 plain; s3 with an edited summary and no compaction logged; s4 empty."""
    migrations.upgrade(_url(path), "0014")
    with closing(sqlite3.connect(path)) as db:
        db.execute("INSERT INTO agents (id, name, tool_names, is_built_in, created_at, updated_at)"
                   " VALUES ('a1', 'Helper', '[]', 0, 1, 1)")
        sessions = [("s1", "One", 7, "the summary", 5), ("s2", "Two", 3, None, None),
                    ("s3", "Three", 2, "hand written", 2), ("s4", "Empty", 0, None, None)]
        db.executemany("INSERT INTO sessions (id, title, current_agent_id, message_count, is_active, created_at,"
                       " updated_at, compacted_summary, compact_boundary) VALUES (?, ?, 'a1', ?, 1, 1, 9, ?, ?)",
                       sessions)
        s1 = [("u1", "user", 1, 1), ("r1", "ai_response", 2, 1), ("u2", "user", 3, 1), ("p1", "ai_response", 4, 0),
              ("p2", "tool_call", 5, 0), ("r2", "ai_response", 6, 1), ("u3", "user", 7, 1)]
        rows = [(mid, "s1", kind, seq, active) for mid, kind, seq, active in s1]
        rows += [("v1", "s2", "user", 1, 1), ("v2", "s2", "ai_response", 2, 1), ("v3", "s2", "user", 3, 1)]
        rows += [("w1", "s3", "user", 1, 1), ("w2", "s3", "ai_response", 2, 1)]
        db.executemany("INSERT INTO messages (id, session_id, type, content, created_at, seq, active)"
                       " VALUES (?, ?, ?, 'text ' || ?1, ?4, ?4, ?5)", rows)
        db.execute("INSERT INTO compactions (session_id, created_at, boundary, tokens_before, tokens_after,"
                   " summary_tokens, trigger) VALUES ('s1', 5, 5, 900, 300, 50, 'auto')")
        db.commit()


def test_every_message_survives_and_each_session_becomes_one_branch(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _build_0014(path)
    with closing(sqlite3.connect(path)) as db:
        columns = ", ".join(r[1] for r in db.execute("PRAGMA table_info(messages)"))
        before = db.execute(f"SELECT {columns} FROM messages ORDER BY id").fetchall()
    migrations.upgrade(_url(path))
    with closing(sqlite3.connect(path)) as db:
        after = db.execute(f"SELECT {columns} FROM messages ORDER BY id").fetchall()
        parents = dict(db.execute("SELECT id, parent_id FROM messages").fetchall())
    assert after == before  # every row, every column as it was (plus its parent)
    # on the path each message follows the one before; the retried partial reply (p1, p2) hangs from u2 as a branch
    assert parents == {"u1": None, "r1": "u1", "u2": "r1", "p1": "u2", "p2": "p1", "r2": "u2", "u3": "r2",
                       "v1": None, "v2": "v1", "v3": "v2", "w1": None, "w2": "w1"}


def test_the_summary_in_force_is_recorded_with_the_last_message_it_covers(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _build_0014(path)
    migrations.upgrade(_url(path))
    with closing(sqlite3.connect(path)) as db:
        records = db.execute("SELECT session_id, boundary, trigger, summary, through_message_id FROM compactions"
                             " ORDER BY session_id").fetchall()
    # s1: boundary seq 5 (p2, off the path): the last message on the path before it is u2
    assert records == [("s1", 5, "auto", "the summary", "u2"), ("s3", 2, "migrated", "hand written", "w1")]


def test_the_app_opening_an_old_database_reads_the_same_conversation_and_tree(tmp_path: Path) -> None:
    _build_0014(tmp_path / "palimpsest.db")
    storage = Storage.open(tmp_path)  # backs up and upgrades, as at start
    try:
        assert [m.id for m in storage.messages.snapshot("s1")] == ["u1", "r1", "u2", "r2", "u3"]
        assert [m.id for m in storage.messages.since("s1", 5)] == ["r2", "u3"]
        added = storage.messages.add(Message(id="r3", session_id="s1", type=MessageType.AI_RESPONSE, content="new"))
        assert added.parent_id == "u3" and added.seq == 8
        assert storage.sessions.compactions("s1")[0].through_id == "u2"
        assert storage.sessions.get("s1").message_count == 8  # type: ignore[union-attr]
    finally:
        storage.close()


def test_downgrade_keeps_every_message_and_the_path(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _build_0014(path)
    migrations.upgrade(_url(path))
    migrations.downgrade(_url(path), "0014")
    with closing(sqlite3.connect(path)) as db:
        rows = db.execute("SELECT id, active FROM messages WHERE session_id = 's1' ORDER BY seq").fetchall()
        columns = {r[1] for r in db.execute("PRAGMA table_info(messages)")}
    assert rows == [("u1", 1), ("r1", 1), ("u2", 1), ("p1", 0), ("p2", 0), ("r2", 1), ("u3", 1)]
    assert "parent_id" not in columns
