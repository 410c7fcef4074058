"""Connections kept between plain-SQL transactions: the one used last serves the next, none is lost or shared, and
every one goes back to the pool when the store closes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from data.db.engine import Database, create_sqlite_engine
from data.db.parked import PARKED_CONNECTIONS


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(create_sqlite_engine(tmp_path / "parked.db"))
    with database.write_sql() as con:
        con.execute("CREATE TABLE t (a INTEGER)")
    yield database
    database.close()


def _checked_out(db: Database) -> int:
    return db.engine.pool.checkedout()  # type: ignore[attr-defined]


def test_the_next_transaction_runs_on_the_connection_used_last(db: Database) -> None:
    with db.write_sql() as con:
        con.execute("INSERT INTO t VALUES (1)")
        wrote = con
    with db.read_sql() as con:
        assert con is wrote
        assert con.execute("SELECT a FROM t").fetchall() == [(1,)]
    with db.atomic(), db.write_sql() as con:
        assert con is wrote
    assert _checked_out(db) == 1  # kept between transactions, not lost


def test_transactions_open_at_once_never_share_a_connection_and_at_most_the_limit_is_kept(db: Database) -> None:
    opened: list[sqlite3.Connection] = []

    def nest(depth: int) -> None:  # read transactions of their own, each still open when the next begins
        if depth == 0:
            return
        with db.read_sql() as con:
            opened.append(con)
            nest(depth - 1)

    nest(PARKED_CONNECTIONS + 2)
    assert len({id(c) for c in opened}) == PARKED_CONNECTIONS + 2
    assert _checked_out(db) == PARKED_CONNECTIONS  # the rest went back to the pool
    db.release_parked()
    assert _checked_out(db) == 0


def test_a_transaction_that_failed_leaves_its_connection_clean_for_the_next(db: Database) -> None:
    with pytest.raises(RuntimeError), db.write_sql() as con:
        con.execute("INSERT INTO t VALUES (2)")
        failed = con
        raise RuntimeError("refused")
    assert not failed.in_transaction
    with db.write_sql() as con:
        assert con is failed
        assert con.execute("SELECT count(*) FROM t").fetchone() == (0,)  # the failed insert was rolled back
        con.execute("INSERT INTO t VALUES (3)")
    with db.read() as s:
        assert [r[0] for r in s.execute(text("SELECT a FROM t"))] == [3]


def test_a_unit_of_work_with_an_orm_session_returns_its_connection_to_the_pool(db: Database) -> None:
    db.release_parked()
    with db.atomic(), db.write() as s:
        s.execute(text("INSERT INTO t VALUES (4)"))
    assert _checked_out(db) == 0  # the ORM's connection is the pool's to hand out again


def test_closing_returns_every_connection(tmp_path: Path) -> None:
    database = Database(create_sqlite_engine(tmp_path / "closing.db"))
    with database.read_sql() as first, database.read_sql() as second:
        assert first is not second
    assert _checked_out(database) == 2
    database.close()
    assert _checked_out(database) == 0
