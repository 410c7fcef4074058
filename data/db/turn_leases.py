"""TurnLeases over SQLite: a lease row per conversation whose turn is being written and one per turn waiting in line
for it, each taken in one write transaction (BEGIN IMMEDIATE serializes the takers of every process); the rows of
expired owners and of processes gone from this machine are dropped when met."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import delete, select, update

from data.db.engine import Database
from data.db.lease_rules import HOST as HOST  # re-exported
from data.db.lease_rules import in_the_way as _in_the_way
from data.db.lease_rules import process_gone
from data.db.lease_rules import to_lease as _lease
from data.db.rows import SessionRow, TurnLeaseRow
from domain.errors import NotFound
from domain.models import SessionId
from domain.ports import TurnLease


class SqlTurnLeases:
    """Leases by conversation id."""

    def __init__(self, db: Database, gone: Callable[[str, int], bool] = process_gone) -> None:
        self._db = db
        self._gone = gone

    def take(self, lease: TurnLease, now: datetime, *, queue: bool = False) -> TurnLease | None:
        with self._db.write() as s:
            if s.get(SessionRow, lease.session_id) is None:
                raise NotFound("session", lease.session_id)
            rows = s.scalars(select(TurnLeaseRow).where(TurnLeaseRow.session_id == lease.session_id)).all()
            live = []
            for row in rows:
                if row.owner == lease.owner or self._live(row, now):
                    live.append(row)
                else:
                    s.delete(row)  # a dead owner's lease or place in the line
            mine = next((r for r in live if r.owner == lease.owner), None)
            blocker = _in_the_way(mine, [r for r in live if r.owner != lease.owner])
            if blocker is not None and not queue:
                return _lease(blocker)
            if mine is None:
                mine = TurnLeaseRow(session_id=lease.session_id, owner=lease.owner, acquired_at=lease.acquired_at)
                s.add(mine)
            mine.holder, mine.host, mine.pid, mine.expires_at = lease.holder, lease.host, lease.pid, lease.expires_at
            mine.holding = blocker is None
            if blocker is None:
                mine.acquired_at = lease.acquired_at
            return _lease(blocker) if blocker is not None else None

    def renew(self, session_id: SessionId, owner: str, until: datetime) -> bool:
        with self._db.write() as s:
            done = s.execute(update(TurnLeaseRow).where(TurnLeaseRow.session_id == session_id,
                                                        TurnLeaseRow.owner == owner, TurnLeaseRow.holding.is_(True))
                             .values(expires_at=until))
            return bool(done.rowcount)  # type: ignore[attr-defined]

    def release(self, session_id: SessionId, owner: str) -> None:
        with self._db.write() as s:
            s.execute(delete(TurnLeaseRow).where(TurnLeaseRow.session_id == session_id, TurnLeaseRow.owner == owner))

    def holder(self, session_id: SessionId, now: datetime) -> TurnLease | None:
        with self._db.read() as s:
            rows = s.scalars(select(TurnLeaseRow).where(TurnLeaseRow.session_id == session_id,
                                                        TurnLeaseRow.holding.is_(True))).all()
            return next((_lease(r) for r in rows if self._live(r, now)), None)

    def _live(self, row: TurnLeaseRow, now: datetime) -> bool:
        return row.expires_at > now and not self._gone(row.host, row.pid)
