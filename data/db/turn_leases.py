"""TurnLeases over SQLite: a lease row per conversation whose turn is being written, taken in one write transaction
(BEGIN IMMEDIATE serializes the takers of every process), taken over once expired or its process is gone."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import delete, update

from data.db.engine import Database
from data.db.rows import SessionRow, TurnLeaseRow
from domain.errors import NotFound
from domain.models import SessionId
from domain.ports import TurnLease

HOST = socket.gethostname()


def process_gone(host: str, pid: int) -> bool:
    """True only when the process is known to be gone: on this machine, POSIX, no process with that id (elsewhere
    nothing can be told, and the lease's expiry decides)."""
    if host != HOST or pid <= 0 or sys.platform == "win32":
        return False
    try:
        os.kill(pid, 0)  # signal 0: nothing is sent, only whether the process exists
    except ProcessLookupError:
        return True
    except OSError:  # it exists, owned by someone else
        return False
    return False


class SqlTurnLeases:
    """Leases by conversation id."""

    def __init__(self, db: Database, gone: Callable[[str, int], bool] = process_gone) -> None:
        self._db = db
        self._gone = gone

    def take(self, lease: TurnLease, now: datetime) -> TurnLease | None:
        with self._db.write() as s:
            if s.get(SessionRow, lease.session_id) is None:
                raise NotFound("session", lease.session_id)
            row = s.get(TurnLeaseRow, lease.session_id)
            if row is not None and row.owner != lease.owner and self._live(row, now):
                return _lease(row)
            if row is None:
                row = TurnLeaseRow(session_id=lease.session_id)
                s.add(row)
            row.owner, row.holder, row.host, row.pid = lease.owner, lease.holder, lease.host, lease.pid
            row.acquired_at, row.expires_at = lease.acquired_at, lease.expires_at
            return None

    def renew(self, session_id: SessionId, owner: str, until: datetime) -> bool:
        with self._db.write() as s:
            done = s.execute(update(TurnLeaseRow).where(TurnLeaseRow.session_id == session_id,
                                                        TurnLeaseRow.owner == owner).values(expires_at=until))
            return bool(done.rowcount)  # type: ignore[attr-defined]

    def release(self, session_id: SessionId, owner: str) -> None:
        with self._db.write() as s:
            s.execute(delete(TurnLeaseRow).where(TurnLeaseRow.session_id == session_id, TurnLeaseRow.owner == owner))

    def holder(self, session_id: SessionId, now: datetime) -> TurnLease | None:
        with self._db.read() as s:
            row = s.get(TurnLeaseRow, session_id)
            return _lease(row) if row is not None and self._live(row, now) else None

    def _live(self, row: TurnLeaseRow, now: datetime) -> bool:
        return row.expires_at > now and not self._gone(row.host, row.pid)


def _lease(row: TurnLeaseRow) -> TurnLease:
    return TurnLease(session_id=row.session_id, owner=row.owner, holder=row.holder, acquired_at=row.acquired_at,
                     expires_at=row.expires_at, host=row.host, pid=row.pid)
