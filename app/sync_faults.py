"""A fault a test asks a real `sync now` process for (PALIMPSEST_SYNC_FAULT): it kills or stops itself at a given
point of the sync, so a real SIGKILL lands where the test chose (unset, as always outside tests: nothing changes).

`kill:N` / `stop:N`: SIGKILL / SIGSTOP before the Nth operation (a call to the remote or to the local replica);
`kill:NAME` / `stop:NAME`: before the first call of that operation (`stop:mark_pushed`); `kill-db:N`: SIGKILL at
SQLite's Nth progress callback (every 10 virtual machine steps), inside a statement; `trace`: each operation is
written to standard error as `sync-op N NAME db=D` (D: the progress callbacks so far), for a test to choose from."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any, TypeVar

from sqlalchemy import Connection, event

from data.db.engine import Database

FAULT_ENV = "PALIMPSEST_SYNC_FAULT"
REMOTE_OPS = frozenset({"list", "get", "put", "delete", "sweep"})
REPLICA_OPS = frozenset({"applied", "apply", "pending", "written", "begin_push", "mark_pushed", "state", "blobs_of",
                         "has_blob", "read_blob", "write_blob"})
DB_STEPS = 10
T = TypeVar("T")


class _Fault:
    """Counts operations and SQLite progress callbacks; signals this process at the chosen one."""

    def __init__(self, spec: str) -> None:
        action, _, self.at = spec.partition(":")
        self.trace, self.on_db = action == "trace", action == "kill-db"
        self.signal = int(getattr(signal, "SIGSTOP" if action == "stop" else "SIGKILL"))
        self.ops = self.steps = 0

    def op(self, name: str) -> None:
        self.ops += 1
        if self.trace:
            sys.stderr.write(f"sync-op {self.ops} {name} db={self.steps}\n")
        elif not self.on_db and self.at in (str(self.ops), name):
            self.at = ""  # once (a stopped process that goes on does not stop again)
            os.kill(os.getpid(), self.signal)

    def step(self) -> int:
        self.steps += 1
        if self.on_db and self.at == str(self.steps):
            os.kill(os.getpid(), self.signal)
        return 0


class _Counted:
    """`inner` with each call of one of `names` counted first."""

    def __init__(self, inner: Any, names: frozenset[str], fault: _Fault) -> None:
        self._inner, self._names, self._fault = inner, names, fault

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if name not in self._names:
            return value

        def counted(*args: Any, **kwargs: Any) -> Any:
            self._fault.op(name)
            return value(*args, **kwargs)

        return counted


def with_fault(db: Database, remote: T, replica: Any) -> tuple[T, Any]:
    """The remote and replica, counted as PALIMPSEST_SYNC_FAULT asks (unset: as given)."""
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return remote, replica
    fault = _Fault(spec)

    @event.listens_for(db.engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.connection.dbapi_connection.set_progress_handler(fault.step, DB_STEPS)  # type: ignore[union-attr]

    return _Counted(remote, REMOTE_OPS, fault), _Counted(replica, REPLICA_OPS, fault)  # type: ignore[return-value]
