"""SqlTurnLeases on a real SQLite file: one holder per conversation, across connections, the waiting ones served in
the order they came; taken over once expired or once its process (on this machine) is gone; renewed and released
only by its owner."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from data.db.turn_leases import HOST, process_gone
from data.storage import Storage
from domain.errors import NotFound
from domain.models import Session
from domain.ports import TurnLease

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def lease(owner: str, *, host: str = "elsewhere", pid: int = 7, seconds: int = 30, at: datetime = T0
          ) -> TurnLease:
    return TurnLease("s1", owner, f"process {pid} on {host}", at, at + timedelta(seconds=seconds), host, pid)


@pytest.fixture
def two(tmp_path: Path) -> Iterator[tuple[Storage, Storage]]:
    """Two stores (two engines) on one file, as two processes would have."""
    first = Storage.open(tmp_path)
    first.sessions.create(Session(id="s1", title="Chat", current_agent_id="general-assistant", created_at=T0,
                                  updated_at=T0))
    second = Storage.open(tmp_path)
    yield first, second
    first.close()
    second.close()


def test_one_holder_at_a_time_across_connections_until_it_releases(two: tuple[Storage, Storage]) -> None:
    a, b = two
    assert a.turn_leases.take(lease("A"), T0) is None
    blocker = b.turn_leases.take(lease("B"), T0 + timedelta(seconds=5))
    assert blocker is not None and (blocker.owner, blocker.holder) == ("A", "process 7 on elsewhere")
    assert blocker.acquired_at == T0 and blocker.expires_at == T0 + timedelta(seconds=30)
    assert b.turn_leases.holder("s1", T0) == blocker
    b.turn_leases.release("s1", "B")  # not B's: nothing happens
    assert a.turn_leases.holder("s1", T0) is not None
    a.turn_leases.release("s1", "A")
    assert b.turn_leases.holder("s1", T0) is None
    assert b.turn_leases.take(lease("B"), T0) is None


def test_an_expired_lease_is_taken_over_and_its_owner_can_no_longer_renew_it(two: tuple[Storage, Storage]) -> None:
    a, b = two
    assert a.turn_leases.take(lease("A"), T0) is None
    assert a.turn_leases.renew("s1", "A", T0 + timedelta(seconds=60))
    assert b.turn_leases.take(lease("B", at=T0 + timedelta(seconds=59)), T0 + timedelta(seconds=59)) is not None
    later = T0 + timedelta(seconds=61)
    assert b.turn_leases.holder("s1", later) is None
    assert b.turn_leases.take(lease("B", at=later), later) is None
    assert not a.turn_leases.renew("s1", "A", later + timedelta(seconds=30))  # taken over: A must know
    assert a.turn_leases.holder("s1", later).owner == "B"  # type: ignore[union-attr]


def test_the_lease_of_a_process_gone_from_this_machine_is_taken_over_at_once(two: tuple[Storage, Storage]) -> None:
    a, b = two
    gone_pid = subprocess.Popen([sys.executable, "-c", "pass"])
    gone_pid.wait()  # ended and reaped: no process has its id
    assert process_gone(HOST, gone_pid.pid) and not process_gone(HOST, 1) and not process_gone("elsewhere", 10 ** 6)
    assert a.turn_leases.take(lease("A", host=HOST, pid=gone_pid.pid), T0) is None
    assert b.turn_leases.take(lease("B"), T0 + timedelta(seconds=1)) is None


def test_a_lease_on_no_session_is_not_found_and_goes_with_its_session(two: tuple[Storage, Storage]) -> None:
    a, _ = two
    with pytest.raises(NotFound):
        a.turn_leases.take(TurnLease("ghost", "A", "p", T0, T0 + timedelta(seconds=30)), T0)
    assert a.turn_leases.take(lease("A"), T0) is None
    a.sessions.purge("s1")
    assert a.turn_leases.holder("s1", T0) is None


def test_waiting_turns_are_served_first_come_first_served(two: tuple[Storage, Storage]) -> None:
    a, b = two
    assert a.turn_leases.take(lease("A"), T0) is None
    t1, t2, t3 = (T0 + timedelta(seconds=s) for s in (1, 2, 3))
    assert b.turn_leases.take(lease("B", at=t1), t1, queue=True).owner == "A"  # type: ignore[union-attr]
    assert a.turn_leases.take(lease("C", at=t2), t2, queue=True).owner == "A"  # type: ignore[union-attr]
    a.turn_leases.release("s1", "A")
    newcomer = a.turn_leases.take(lease("D", at=t3), t3)  # free, but B and C came first
    assert newcomer is not None and (newcomer.owner, newcomer.waiting) == ("B", True)
    assert a.turn_leases.take(lease("C", at=t3), t3, queue=True).owner == "B"  # type: ignore[union-attr]
    assert b.turn_leases.take(lease("B", at=t3), t3, queue=True) is None  # its turn
    assert b.turn_leases.holder("s1", t3).owner == "B"  # type: ignore[union-attr]
    assert not b.turn_leases.renew("s1", "C", t3 + timedelta(seconds=30))  # a place in line is not a lease
    b.turn_leases.release("s1", "B")
    assert a.turn_leases.take(lease("C", at=t3), t3, queue=True) is None


def test_a_dead_waiters_place_in_line_is_dropped(two: tuple[Storage, Storage]) -> None:
    a, b = two
    assert a.turn_leases.take(lease("A"), T0) is None
    assert b.turn_leases.take(lease("B", seconds=5), T0, queue=True) is not None  # then it stops polling: gone
    a.turn_leases.release("s1", "A")
    later = T0 + timedelta(seconds=6)
    assert a.turn_leases.take(lease("C", at=later), later) is None
