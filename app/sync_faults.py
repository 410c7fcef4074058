"""A fault a test asks a real `sync now` process for (PALIMPSEST_SYNC_FAULT): it kills or stops itself at a given
operation of the sync, so a real SIGKILL lands on a chosen point (unset, as always outside tests: nothing changes).

`kill:N` / `stop:N`: SIGKILL / SIGSTOP before the Nth operation (a call to the remote or to the local replica);
`kill:NAME` / `stop:NAME`: before the first call of that operation (`stop:mark_pushed`); `kill-db:N`: SIGKILL at
SQLite's Nth progress callback (every 1,000 virtual machine steps), inside a statement."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Connection, event

from data.db.engine import Database

FAULT_ENV = "PALIMPSEST_SYNC_FAULT"
REMOTE_OPS = frozenset({"list", "get", "put", "delete", "sweep"})
REPLICA_OPS = frozenset({"applied", "apply", "pending", "written", "begin_push", "mark_pushed", "state", "has_blob",
                         "read_blob", "write_blob"})
DB_STEPS = 1_000
T = TypeVar("T")


def _signal(action: str) -> int:
    return int(getattr(signal, "SIGSTOP" if action == "stop" else "SIGKILL"))


class _Counter:
    """Counts operations and signals this process at the chosen one."""

    def __init__(self, action: str, at: str) -> None:
        self.action, self.at, self.count = action, at, 0

    def tick(self, name: str = "") -> None:
        self.count += 1
        if str(self.count) == self.at or name == self.at:
            self.at = ""  # once (a stopped process that goes on does not stop again)
            os.kill(os.getpid(), _signal(self.action))


class _Counted:
    """`inner` with each call of one of `names` counted first."""

    def __init__(self, inner: Any, names: frozenset[str], counter: _Counter) -> None:
        self._inner, self._names, self._counter = inner, names, counter

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if name not in self._names:
            return value

        def counted(*args: Any, **kwargs: Any) -> Any:
            self._counter.tick(name)
            return value(*args, **kwargs)

        return counted


def with_fault(db: Database, remote: T, replica: Any) -> tuple[T, Any]:
    """The remote and replica, counted as PALIMPSEST_SYNC_FAULT asks (unset: as given)."""
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return remote, replica
    action, _, at = spec.partition(":")
    counter = _Counter("kill" if action == "kill-db" else action, at)
    if action == "kill-db":
        _count_db_steps(db, counter.tick)
        return remote, replica
    return _Counted(remote, REMOTE_OPS, counter), _Counted(replica, REPLICA_OPS, counter)  # type: ignore[return-value]


def _count_db_steps(db: Database, tick: Callable[[], None]) -> None:
    def handler() -> int:
        tick()
        return 0

    @event.listens_for(db.engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.connection.dbapi_connection.set_progress_handler(handler, DB_STEPS)  # type: ignore[union-attr]
