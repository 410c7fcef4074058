"""The SQLite engine: WAL, foreign keys, real transactions (the file is checked first: data.db.inspection)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar, cast

from sqlalchemy import Engine, Select, bindparam, create_engine, event, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session, sessionmaker

from data.db.parked import Parked
from data.db.write_journal import WriteJournal

WAL_SWITCH_SECONDS = 30.0
T = TypeVar("T")
_REVISION = "SELECT value FROM config_revision WHERE id = 1"
_REVISION_KEY = "palimpsest-config-revision"


def use_wal(connection: sqlite3.Connection, timeout: float = WAL_SWITCH_SECONDS) -> None:
    """Puts the database in WAL mode unless it already is (the usual case: then no lock is needed at all).

    Switching needs a moment alone with the file, and SQLite reports "database is locked" at once instead of
    waiting when another connection is busy, so the switch is retried for up to `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if str(connection.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
                return
            connection.execute("PRAGMA journal_mode=WAL").fetchall()
        except sqlite3.OperationalError as exc:
            contended = "locked" in str(exc) or "busy" in str(exc)
            if not contended or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def create_sqlite_engine(path: Path) -> Engine:
    """An engine usable from any thread: WAL, foreign keys on, a 30 s busy timeout, SQLAlchemy-driven BEGIN."""
    engine = create_engine(
        f"sqlite:///{path}", connect_args={"check_same_thread": False, "timeout": 30}
    )

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        dbapi_connection.isolation_level = None
        use_wal(dbapi_connection)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        if conn.connection.dbapi_connection.in_transaction:  # type: ignore[union-attr]
            return  # a session joining a transaction begun in plain SQL (Database's _Tx)
        immediate = conn.get_execution_options().get("sqlite_immediate", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


class _Tx:
    """One transaction on a pooled sqlite3 connection, begun and ended in plain SQL (about a sixth of an ORM
    session's cost); an ORM session joins it only when a repository asks for one."""

    def __init__(self, engine: Engine, parked: Parked, *, immediate: bool) -> None:
        self._engine, self._parked = engine, parked
        self._fairy = parked.take()
        self.con = cast(sqlite3.Connection, self._fairy.driver_connection)
        self.info: dict[str, Any] = {}
        self._session: Session | None = None
        self._bound: Connection | None = None
        try:
            self.con.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
        except BaseException:
            self._fairy.close()
            raise
        self.journal = WriteJournal(self.con) if immediate else None

    def session(self) -> Session:
        """The ORM session of this transaction (made on first use, on the same connection)."""
        if self._session is None:
            self._bound = Connection(self._engine, connection=self._fairy)
            self._session = Session(bind=self._bound, expire_on_commit=False)
        return self._session

    def flushed(self) -> sqlite3.Connection:
        """The connection, with the session's pending ORM changes written first (plain SQL may depend on them)."""
        if self._session is not None and (self._session.new or self._session.dirty or self._session.deleted):
            self._session.flush()
        return self.con

    def end(self, *, commit: bool) -> None:
        """Commits (the session's pending changes flushed first) or rolls back, then returns the connection: parked
        for the next plain-SQL transaction when the transaction ended cleanly, else to the engine's pool."""
        session, bound = self._session, self._bound
        clean = False
        try:
            if commit:
                if session is not None:
                    session.flush()
                self.con.execute("COMMIT")
                if self.journal is not None:
                    self.journal.committed()
        finally:
            try:
                if self.con.in_transaction:
                    self.con.execute("ROLLBACK")
                clean = True
            finally:
                if session is not None and bound is not None:
                    session.close()
                    bound.close()  # returns the connection to the pool
                elif clean:
                    self._parked.give_back(self._fairy)
                else:
                    self._fairy.close()


def keyed_select(row_class: type[Any], *keys: str) -> Select[Any]:
    """A prebuilt SELECT of every column of a row class's table WHERE each key column equals its bound parameter
    (plain rows map several times faster than ORM objects; the mappers read either)."""
    table = row_class.__table__
    return select(*table.c).where(*(table.c[k] == bindparam(k) for k in keys))


class Database:
    """Opens short sessions: `read()` for queries, `write()` for changes (BEGIN IMMEDIATE, one transaction).

    `atomic()` is the unit of work: inside it, every `read()` and `write()` of this thread's (or task's) context
    joins one write transaction that commits when the block ends and rolls back when it raises."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._read = sessionmaker(engine, expire_on_commit=False)
        self._write = sessionmaker(engine.execution_options(sqlite_immediate=True), expire_on_commit=False)
        self._current: ContextVar[_Tx | None] = ContextVar(f"palimpsest-uow-{id(self)}", default=None)
        self._reading: ContextVar[_Tx | None] = ContextVar(f"palimpsest-read-{id(self)}", default=None)
        self._own_write: ContextVar[_Tx | None] = ContextVar(f"palimpsest-sql-write-{id(self)}", default=None)
        self._kept: dict[Hashable, tuple[int, Any]] = {}
        self._parked = Parked(engine)

    def close(self) -> None:
        """Returns the parked connections to the pool and disposes of it (every connection closed)."""
        self._parked.release()
        self.engine.dispose()

    def release_parked(self) -> None:
        """Returns the connections kept between plain-SQL transactions to the engine's pool."""
        self._parked.release()

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reading (the open unit of work's or snapshot's, if any); rolled back at the end."""
        current = self._current.get() or self._reading.get()
        if current is not None:
            yield current.session()
            return
        with self._read() as session:
            yield session

    @contextmanager
    def read_sql(self) -> Iterator[sqlite3.Connection]:
        """The sqlite3 connection to read with in plain SQL (the open unit of work's or snapshot's, if any, else a
        read transaction of its own)."""
        current = self._current.get() or self._reading.get()
        if current is not None:
            yield current.flushed()
            return
        tx = _Tx(self.engine, self._parked, immediate=False)
        try:
            yield tx.con
        finally:
            tx.end(commit=False)

    @property
    def writing(self) -> bool:
        """Whether this context is inside a unit of work (its reads see changes that may still roll back)."""
        return self._current.get() is not None

    def first(self, statement: Select[Any], params: dict[str, Any]) -> Any:
        """The first plain row of a prebuilt statement, or None."""
        with self.read() as s:
            return s.execute(statement, params).first()

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction for every read inside the block (one consistent state, one BEGIN); writes inside
        it still commit on their own."""
        if self._current.get() is not None or self._reading.get() is not None:
            yield
            return
        tx = _Tx(self.engine, self._parked, immediate=False)
        token = self._reading.set(tx)
        try:
            yield
        finally:
            self._reading.reset(token)
            tx.end(commit=False)

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A session whose changes commit together, or not at all (joining the open unit of work, if any)."""
        current = self._current.get()
        if current is not None:
            session = current.session()
            yield session
            session.flush()
            return
        with self._write() as session, session.begin():
            yield session

    @contextmanager
    def write_sql(self) -> Iterator[sqlite3.Connection]:
        """The sqlite3 connection to write with in plain SQL: the open unit of work's (its ORM changes flushed
        first), else a transaction of its own (BEGIN IMMEDIATE) that commits when the block ends."""
        current = self._current.get()
        if current is not None:
            yield current.flushed()
            return
        tx = _Tx(self.engine, self._parked, immediate=True)
        token = self._own_write.set(tx)
        ok = False
        try:
            yield tx.con
            ok = True
        finally:
            self._own_write.reset(token)
            tx.end(commit=ok)

    @contextmanager
    def known_write_sql(self) -> Iterator[sqlite3.Connection]:
        """`write_sql()` for a write whose effect the caches over the store know (they follow it, or it leaves them
        right): the rows it changes are accounted in the transaction's journal when the block ends without error."""
        with self.write_sql() as con:
            before = con.total_changes  # after the unit of work's own ORM changes were flushed: those stay unknown
            yield con
            journal = self.journal()
            assert journal is not None, "write_sql() always runs in a write transaction"
            journal.account(con.total_changes - before)

    def journal(self) -> WriteJournal | None:
        """The journal of the write transaction this context is in (a unit of work's, or a `write_sql` block's
        own), or None outside one (an ORM `write()` session of its own keeps none: its changes stay unaccounted)."""
        tx = self._current.get() or self._own_write.get()
        return tx.journal if tx is not None else None

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction for every repository call inside the block (BEGIN IMMEDIATE: writers are serialized)."""
        if self._current.get() is not None:
            yield
            return
        tx = _Tx(self.engine, self._parked, immediate=True)
        token = self._current.set(tx)
        ok = False
        try:
            yield
            ok = True
        finally:
            self._current.reset(token)
            tx.end(commit=ok)

    def cached(self, key: Hashable, load: Callable[[], T]) -> T:
        """`load()`'s value (immutable), kept until the configuration revision moves: the triggers of migration 0021
        raise it with every change to agents, providers, models, settings or memories, from any process. The
        revision is read once per snapshot; a unit of work may use a kept value but keeps none (it may roll back)."""
        writing = self._current.get() is not None
        reading = None if writing else self._reading.get()
        revision = reading.info.get(_REVISION_KEY) if reading is not None else None
        if revision is None:
            with self.read_sql() as con:
                row = con.execute(_REVISION).fetchone()
            revision = row[0] if row is not None else None
            if revision is not None and reading is not None:
                reading.info[_REVISION_KEY] = revision
        kept = self._kept.get(key)
        if kept is not None and revision is not None and kept[0] == revision:
            return cast(T, kept[1])
        value = load()
        if revision is not None and not writing:
            self._kept[key] = (revision, value)
        return value
