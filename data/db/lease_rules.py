"""What every store of turn leases shares (no SQLAlchemy): this machine's name, whether a process is gone, and who
stands in a lease's way."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from domain.models import SessionId
from domain.ports import TurnLease


class LeaseRow(Protocol):
    """A stored lease or place in the line, as both stores read it."""

    session_id: SessionId
    owner: str
    holder: str
    host: str
    pid: int
    acquired_at: datetime
    expires_at: datetime
    holding: bool


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


def in_the_way(mine: LeaseRow | None, others: Sequence[LeaseRow]) -> LeaseRow | None:
    """The live lease held by another, else the first waiter in line before `mine` (any, when not in line)."""
    held = next((r for r in others if r.holding), None)
    if held is not None:
        return held
    place = (mine.acquired_at, mine.owner) if mine is not None else None
    ahead = sorted((r for r in others if place is None or (r.acquired_at, r.owner) < place),
                   key=lambda r: (r.acquired_at, r.owner))
    return ahead[0] if ahead else None


def to_lease(row: LeaseRow) -> TurnLease:
    """The port's lease of a stored row."""
    return TurnLease(session_id=row.session_id, owner=row.owner, holder=row.holder, acquired_at=row.acquired_at,
                     expires_at=row.expires_at, host=row.host, pid=row.pid, waiting=not row.holding)
