"""Database's transactions begun in plain SQL on a pooled sqlite3 connection: plain statements and ORM sessions joined
to one unit of work commit or roll back together, and every connection goes back to the pool."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from data.db.engine import Database, create_sqlite_engine


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    engine = create_sqlite_engine(tmp_path / "plain.db")
    database = Database(engine)
    with database.write_sql() as con:
        con.execute("CREATE TABLE t (a INTEGER)")
    yield database
    database.release_parked()  # the connections kept between plain-SQL transactions go back too
    assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]
    engine.dispose()


def _values(db: Database) -> list[int]:
    with db.read() as s:
        return [row[0] for row in s.execute(text("SELECT a FROM t ORDER BY a"))]


def test_plain_sql_and_an_orm_session_in_one_unit_of_work_commit_together(db: Database) -> None:
    with db.atomic():
        with db.write_sql() as con:
            con.execute("INSERT INTO t VALUES (1)")
        with db.write() as s:
            s.execute(text("INSERT INTO t VALUES (2)"))
        with db.read_sql() as con:
            assert con.execute("SELECT count(*) FROM t").fetchone() == (2,)  # one transaction sees both
    assert _values(db) == [1, 2]


def test_a_failing_unit_of_work_rolls_back_its_plain_and_orm_writes(db: Database) -> None:
    with pytest.raises(RuntimeError), db.atomic():
        with db.write_sql() as con:
            con.execute("INSERT INTO t VALUES (1)")
        with db.write() as s:
            s.execute(text("INSERT INTO t VALUES (2)"))
        raise RuntimeError("undo")
    with pytest.raises(RuntimeError), db.atomic():
        with db.write_sql() as con:
            con.execute("INSERT INTO t VALUES (3)")
        raise RuntimeError("undo, no ORM session")
    assert _values(db) == []


def test_a_plain_write_of_its_own_commits_or_rolls_back_alone(db: Database) -> None:
    with db.write_sql() as con:
        con.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(RuntimeError), db.write_sql() as con:
        con.execute("INSERT INTO t VALUES (2)")
        raise RuntimeError("undo")
    assert _values(db) == [1]


def test_a_snapshot_reads_one_state_while_another_connection_writes(db: Database) -> None:
    with db.write_sql() as con:
        con.execute("INSERT INTO t VALUES (1)")
    with db.snapshot():
        with db.read_sql() as con:
            assert con.execute("SELECT count(*) FROM t").fetchone() == (1,)
        with db.write_sql() as con:  # not in the snapshot's transaction: commits on its own
            con.execute("INSERT INTO t VALUES (2)")
        with db.read() as s:  # the snapshot's ORM session: the same read transaction, the state it began with
            assert s.execute(text("SELECT count(*) FROM t")).scalar() == 1
    assert _values(db) == [1, 2]


class _Base(DeclarativeBase):
    pass


class _Row(_Base):
    __tablename__ = "u"
    id: Mapped[int] = mapped_column(primary_key=True)


def test_plain_sql_inside_a_unit_of_work_sees_the_orm_objects_added_before_it(db: Database) -> None:
    with db.write_sql() as con:
        con.execute("CREATE TABLE u (id INTEGER PRIMARY KEY)")
    with db.atomic(), db.write() as s:
        s.add(_Row(id=7))  # pending: not flushed yet
        with db.write_sql() as con:
            assert con.execute("SELECT id FROM u").fetchall() == [(7,)]
        with db.read_sql() as con:
            assert con.execute("SELECT count(*) FROM u").fetchone() == (1,)
    with db.read_sql() as con:
        assert con.execute("SELECT id FROM u").fetchall() == [(7,)]
