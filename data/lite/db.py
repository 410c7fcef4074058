"""The sqlite3 connection of the lite store and its unit of work: the transactions of data.db.engine.Database (WAL,
foreign keys, BEGIN IMMEDIATE for writes, a nested block joins the outer one), without SQLAlchemy."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from data.db.records import TIMESTAMPS as TIMESTAMPS  # re-exported
from data.db.records import Record as Record  # re-exported
from data.db.records import records
from data.db.timestamps import at as at  # re-exported
from data.db.timestamps import micros as micros  # re-exported

BUSY_SECONDS = 30.0
class LiteDatabase:
    """One connection for writes and the reads between them, one more for `snapshot()` reads; used from the thread
    that opened it (sqlite3 refuses any other)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._thread = threading.get_ident()
        self._conn = self._connect()
        self._reader: sqlite3.Connection | None = None
        self._atomic = 0  # depth of atomic() blocks (and write() outside one)
        self._snapshot = 0  # depth of snapshot() blocks

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=BUSY_SECONDS, isolation_level=None)
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    @property
    def connection(self) -> sqlite3.Connection:
        """The connection writes go through (for code shared with the full store that takes one, such as the seed)."""
        return self._conn

    @property
    def on_its_thread(self) -> bool:
        """Whether the caller runs on the thread that opened the store (the only one its connections serve)."""
        return threading.get_ident() == self._thread

    @property
    def writing(self) -> bool:
        """Whether a transaction that writes is open (its reads see changes that may still roll back)."""
        return self._atomic > 0

    @property
    def in_transaction(self) -> bool:
        """Whether any block (atomic or snapshot) is open."""
        return self._atomic > 0 or self._snapshot > 0

    def _reading(self) -> sqlite3.Connection:
        if self._atomic == 0 and self._snapshot > 0 and self._reader is not None:
            return self._reader
        return self._conn

    def rows(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
        """Plain rows of a query (the open unit of work's or snapshot's view, if any)."""
        return self._reading().execute(sql, params).fetchall()

    def records(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Record]:
        """Rows of a query as Records."""
        return records(self._reading().execute(sql, params))

    def record(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Record | None:
        """The first row as a Record, or None."""
        found = self.records(sql, params)
        return found[0] if found else None

    def value(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        """The first column of the first row, or None."""
        row = self._reading().execute(sql, params).fetchone()
        return row[0] if row else None

    def run(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        """A statement that writes; call it inside write() or atomic()."""
        assert self._atomic > 0, "a write runs inside write() or atomic()"
        return self._conn.execute(sql, params)

    def many(self, sql: str, params: Sequence[Sequence[Any] | dict[str, Any]]) -> None:
        """One statement for each set of parameters, inside write() or atomic()."""
        assert self._atomic > 0, "a write runs inside write() or atomic()"
        self._conn.executemany(sql, params)

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction for every call inside the block (BEGIN IMMEDIATE: writers are serialized); a nested block
        joins it. Commits when the block ends, rolls back when it raises."""
        if self._atomic > 0:
            self._atomic += 1
            try:
                yield
            finally:
                self._atomic -= 1
            return
        self._conn.execute("BEGIN IMMEDIATE")
        self._atomic = 1
        try:
            yield
        except BaseException:
            self._atomic = 0
            self._conn.execute("ROLLBACK")
            raise
        self._atomic = 0
        self._conn.execute("COMMIT")

    write = atomic  # a single repository write: its own transaction, or the open one's

    @contextmanager
    def read_sql(self) -> Iterator[sqlite3.Connection]:
        """The connection to read with (the open block's view, if any), as Database.read_sql gives one."""
        yield self._reading()

    @contextmanager
    def write_sql(self) -> Iterator[sqlite3.Connection]:
        """The connection to write with inside a transaction (the open one's, or its own), as Database.write_sql."""
        with self.atomic():
            yield self._conn

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction for every read inside the block (on a connection of its own, so writes inside it
        still commit on their own, as Database.snapshot's do)."""
        if self.in_transaction:
            self._snapshot += 1
            try:
                yield
            finally:
                self._snapshot -= 1
            return
        if self._reader is None:
            self._reader = self._connect()
        self._reader.execute("BEGIN")
        self._snapshot = 1
        try:
            yield
        finally:
            self._snapshot = 0
            self._reader.execute("ROLLBACK")

    def close(self) -> None:
        """Closes both connections."""
        if self._reader is not None:
            self._reader.close()
        self._conn.close()
