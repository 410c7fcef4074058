"""Whose database is it: messages say what is true, and a refused file is only read, nothing created beside it."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from data.storage import Storage
from domain.errors import DatabaseTooNew, DatabaseUnreadable
from tests.cli.harness import Cli

Snapshot = dict[str, tuple[str, int]]


def _snapshot(folder: Path) -> Snapshot:
    """Every file in the folder with its content hash and modification time."""
    return {p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(folder.iterdir()) if p.is_file()}


@contextmanager
def _untouched(folder: Path) -> Iterator[None]:
    """Asserts that the block neither creates, removes nor changes any file in the folder."""
    before = _snapshot(folder)
    yield
    assert _snapshot(folder) == before


def _make_db(path: Path, *statements: str, wal: bool = False) -> None:
    with closing(sqlite3.connect(path)) as db:
        if wal:
            db.execute("PRAGMA journal_mode=WAL")
        for statement in statements:
            db.execute(statement)
        db.commit()
    # closing the last connection checkpoints and removes -wal and -shm: the file stays in WAL mode on its own
    assert not path.with_name(path.name + "-wal").exists()


def _palimpsest_db(home: Path) -> Path:
    Storage.open(home).close()
    path = home / "palimpsest.db"
    for leftover in (home / "palimpsest.db.lock",):
        leftover.unlink()
    return path


@pytest.mark.parametrize("revision", ["1a2b3c4d5e6f", "0001"])
def test_another_programs_alembic_database_is_called_foreign_not_newer(tmp_path: Path, revision: str) -> None:
    path = tmp_path / "palimpsest.db"
    _make_db(path, "CREATE TABLE invoices (id INTEGER)", "CREATE TABLE alembic_version (version_num VARCHAR(32))",
             f"INSERT INTO alembic_version VALUES ('{revision}')")
    with _untouched(tmp_path), pytest.raises(DatabaseUnreadable) as caught:
        Storage.open(tmp_path)
    message = str(caught.value)
    assert "another program's SQLite database" in message and "invoices" in message
    assert f"uses Alembic too, at revision {revision}" in message
    assert "newer" not in message and str(path) in message


def test_palimpsest_tables_with_an_empty_version_table_are_refused_with_a_plain_reason(tmp_path: Path) -> None:
    path = _palimpsest_db(tmp_path)
    with closing(sqlite3.connect(path)) as db:
        db.execute("DELETE FROM alembic_version")
        db.commit()
    with _untouched(tmp_path), pytest.raises(DatabaseUnreadable, match="no schema revision") as caught:
        Storage.open(tmp_path)
    assert "alembic_version table is empty" in str(caught.value)


def test_only_foreign_tables_and_an_empty_version_table_are_refused_not_migrated_in_place(tmp_path: Path) -> None:
    path = tmp_path / "palimpsest.db"
    _make_db(path, "CREATE TABLE notes (body TEXT)", "INSERT INTO notes VALUES ('keep me')",
             "CREATE TABLE alembic_version (version_num VARCHAR(32))")
    with _untouched(tmp_path), pytest.raises(DatabaseUnreadable, match="another program's SQLite database"):
        Storage.open(tmp_path)
    with closing(sqlite3.connect(path)) as db:
        assert {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")} == {
            "notes", "alembic_version"}


def test_an_empty_version_table_alone_is_not_a_new_database(tmp_path: Path) -> None:
    _make_db(tmp_path / "palimpsest.db", "CREATE TABLE alembic_version (version_num VARCHAR(32))")
    with _untouched(tmp_path), pytest.raises(DatabaseUnreadable, match="no tables but alembic_version"):
        Storage.open(tmp_path)


def test_a_refused_wal_mode_file_gets_no_wal_shm_or_lock_file_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "palimpsest.db"
    _make_db(path, "CREATE TABLE contacts (name TEXT)", "INSERT INTO contacts VALUES ('Ada')", wal=True)
    with _untouched(tmp_path), pytest.raises(DatabaseUnreadable, match="contacts"):
        Storage.open(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["palimpsest.db"]


def test_a_newer_palimpsest_database_in_wal_mode_is_refused_as_newer_and_left_alone(tmp_path: Path) -> None:
    path = _palimpsest_db(tmp_path)
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE alembic_version SET version_num = '0999'")
        db.commit()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["palimpsest.db"]
    with _untouched(tmp_path), pytest.raises(DatabaseTooNew) as caught:
        Storage.open(tmp_path)
    assert caught.value.revision == "0999" and "newer version of Palimpsest" in str(caught.value)


def test_a_palimpsest_database_with_a_live_wal_is_read_through_it(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path)  # keeps its connections: -wal and -shm stay
    try:
        storage.providers.list()
        reopened = Storage.open(tmp_path)
        reopened.close()
    finally:
        storage.close()


def test_the_cli_refuses_a_half_stamped_database_in_one_line_without_sql(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    path = _palimpsest_db(home)
    with closing(sqlite3.connect(path)) as db:
        db.execute("DELETE FROM alembic_version")
        db.commit()
    (tmp_path / "keychain").mkdir()
    with _untouched(home):
        result = Cli(home, tmp_path / "keychain" / "keys.json").run("sessions", "list")
    assert result.code == 1 and result.err.count("\n") == 1
    assert result.err.startswith(f"palimpsest: The file {path} is not a usable Palimpsest database (it has "
                                 "Palimpsest's tables but no schema revision")
    assert "CREATE TABLE" not in result.err and "Traceback" not in result.err
