"""Devices for in-process sync tests: a store per folder, written through the repositories, synced by the use case;
and the comparisons that say two stores converged and neither is corrupt."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from data.storage import Storage
from data.sync.cipher import PlainCipher
from data.sync.replica import SqlReplica
from data.sync.tables import current_state
from domain.attachment import Attachment, AttachmentKind
from domain.models import Message, MessageType, Session
from domain.sync.ports import Remote
from domain.sync.sync_now import SyncNowUseCase, SyncReport


class Store:
    """One device's store, opened for the duration of a test."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.storage = Storage.open(home)
        self.replica = SqlReplica(self.storage.unit_of_work, self.storage.attachment_files)

    def sync(self, remote: Remote) -> SyncReport:
        return SyncNowUseCase(remote, PlainCipher(), self.replica)()

    def conversation(self, sid: str, title: str, turns: Sequence[str], attach: bytes | None = None) -> None:
        now = datetime.now(UTC)
        self.storage.sessions.create(Session(sid, title, None, now, now))
        self.talk(sid, turns, attach)

    def talk(self, sid: str, turns: Sequence[str], attach: bytes | None = None) -> None:
        for i, text in enumerate(turns):
            files: tuple[Attachment, ...] = ()
            if attach is not None and i == 0:
                sha = self.storage.attachment_files.put(attach)
                files = (Attachment(sha, "notes.txt", "text/plain", AttachmentKind.TEXT, len(attach)),)
            kind = MessageType.USER if i % 2 == 0 else MessageType.AI_RESPONSE
            self.storage.messages.add(Message(f"{sid}-{text}", sid, kind, text, attachments=files))

    def close(self) -> None:
        self.storage.close()

    def state(self) -> dict[Any, Any]:
        """Every synced value and every conversation's message order."""
        with self.storage.unit_of_work.read() as s:
            conn = s.connection()
            state: dict[Any, Any] = dict(current_state(conn))
            state["order"] = conn.exec_driver_sql(
                "SELECT session_id, seq, id, active FROM messages ORDER BY session_id, seq").all()
        return state


def assert_sound(home: Path) -> None:
    """The database file passes SQLite's integrity and foreign key checks, and each conversation's seqs are unique."""
    with sqlite3.connect(home / "palimpsest.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert conn.execute("SELECT session_id, seq FROM messages GROUP BY session_id, seq HAVING count(*) > 1"
                            ).fetchall() == []


def until_quiet(stores: Sequence[Store], remote: Remote, rounds: int = 8) -> None:
    for _ in range(rounds):
        reports = [s.sync(remote) for s in stores]
        if all(r.received == 0 and r.sent == 0 for r in reports):
            return
    raise AssertionError("still syncing")
