"""A hand-written TurnLeases: leases and places in line in a dict, with the store's rules (first come first served,
expiry, a gone owner, owner-only renewal)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from domain.errors import NotFound
from domain.models import SessionId
from domain.ports import TurnLease


class FakeTurnLeases:
    """Rows by (session id, owner); `gone` holds the (host, pid) of processes known to have died; `known` the
    sessions (None: every id is a session)."""

    def __init__(self, known: set[str] | None = None) -> None:
        self.rows: dict[tuple[SessionId, str], TurnLease] = {}
        self.gone: set[tuple[str, int]] = set()
        self.known = known

    @property
    def leases(self) -> dict[SessionId, TurnLease]:
        """The held leases by session (waiters left out)."""
        return {sid: lease for (sid, _), lease in self.rows.items() if not lease.waiting}

    def take(self, lease: TurnLease, now: datetime, *, queue: bool = False) -> TurnLease | None:
        if self.known is not None and lease.session_id not in self.known:
            raise NotFound("session", lease.session_id)
        sid = lease.session_id
        for key, row in list(self.rows.items()):
            if key[0] == sid and row.owner != lease.owner and not self._live(row, now):
                del self.rows[key]
        mine = self.rows.get((sid, lease.owner))
        others = [r for (s, o), r in self.rows.items() if s == sid and o != lease.owner]
        held = next((r for r in others if not r.waiting), None)
        place = (mine.acquired_at, mine.owner) if mine is not None else None
        ahead = sorted((r for r in others if place is None or (r.acquired_at, r.owner) < place),
                       key=lambda r: (r.acquired_at, r.owner))
        blocker = held or (ahead[0] if ahead else None)
        if blocker is not None:
            if queue:
                since = mine.acquired_at if mine is not None else lease.acquired_at
                self.rows[(sid, lease.owner)] = replace(lease, acquired_at=since, waiting=True)
            return blocker
        self.rows[(sid, lease.owner)] = replace(lease, waiting=False)
        return None

    def renew(self, session_id: SessionId, owner: str, until: datetime) -> bool:
        held = self.rows.get((session_id, owner))
        if held is None or held.waiting:
            return False
        self.rows[(session_id, owner)] = replace(held, expires_at=until)
        return True

    def release(self, session_id: SessionId, owner: str) -> None:
        self.rows.pop((session_id, owner), None)

    def holder(self, session_id: SessionId, now: datetime) -> TurnLease | None:
        return next((r for (s, _), r in self.rows.items() if s == session_id and not r.waiting and self._live(r, now)),
                    None)

    def _live(self, lease: TurnLease, now: datetime) -> bool:
        return lease.expires_at > now and (lease.host, lease.pid) not in self.gone
