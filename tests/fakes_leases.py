"""A hand-written TurnLeases: leases in a dict, with the store's rules (expiry, a gone owner, owner-only renewal)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from domain.errors import NotFound
from domain.models import SessionId
from domain.ports import TurnLease


class FakeTurnLeases:
    """Leases by session id; `gone` holds the (host, pid) of processes known to have died; `known` the sessions
    (None: every id is a session)."""

    def __init__(self, known: set[str] | None = None) -> None:
        self.leases: dict[SessionId, TurnLease] = {}
        self.gone: set[tuple[str, int]] = set()
        self.known = known
        self.taken: list[str] = []  # owners, in the order they took a lease

    def take(self, lease: TurnLease, now: datetime) -> TurnLease | None:
        if self.known is not None and lease.session_id not in self.known:
            raise NotFound("session", lease.session_id)
        held = self.leases.get(lease.session_id)
        if held is not None and held.owner != lease.owner and self._live(held, now):
            return held
        self.leases[lease.session_id] = lease
        self.taken.append(lease.owner)
        return None

    def renew(self, session_id: SessionId, owner: str, until: datetime) -> bool:
        held = self.leases.get(session_id)
        if held is None or held.owner != owner:
            return False
        self.leases[session_id] = replace(held, expires_at=until)
        return True

    def release(self, session_id: SessionId, owner: str) -> None:
        held = self.leases.get(session_id)
        if held is not None and held.owner == owner:
            del self.leases[session_id]

    def holder(self, session_id: SessionId, now: datetime) -> TurnLease | None:
        held = self.leases.get(session_id)
        return held if held is not None and self._live(held, now) else None

    def _live(self, lease: TurnLease, now: datetime) -> bool:
        return lease.expires_at > now and (lease.host, lease.pid) not in self.gone
