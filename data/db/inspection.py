"""Decides, without changing a byte on disk, whether the file at the database path is Palimpsest's to open.

A file is Palimpsest's when it has Palimpsest's own tables and an Alembic revision Palimpsest knows (a revision it
does not know, on Palimpsest's tables, is a newer Palimpsest's). A missing or empty file, or an SQLite file without
a single table, is a new database. Anything else is refused as another program's, a damaged file, or a newer
Palimpsest's, and is only ever read: opened with `mode=ro`, and for a WAL-mode file whose -wal and -shm are not
both there, `immutable=1` too, so that SQLite creates no -wal or -shm file beside it.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from domain.errors import DatabaseTooNew, DatabaseUnreadable

SQLITE_HEADER = b"SQLite format 3\x00"
HEADER_BYTES = 100
WAL_FLAG = 18  # header byte: 1 = rollback journal, 2 = WAL
BUSY_SECONDS = 30.0
PALIMPSEST_TABLES = frozenset({"providers", "sessions", "messages"})  # created by revision 0001, never renamed
VERSION_TABLE = "alembic_version"
NAMES_SHOWN = 4


def inspect_file(path: Path, known_revisions: frozenset[str]) -> str | None:
    """The file's Palimpsest revision, or None for a new (missing, empty or table-less) database.

    Raises DatabaseUnreadable for anything that is not Palimpsest's and DatabaseTooNew for a newer Palimpsest's."""
    if not path.exists():
        return None
    if not path.is_file():
        raise DatabaseUnreadable(str(path), "it is not a regular file")
    try:
        with path.open("rb") as handle:
            header = handle.read(HEADER_BYTES)
    except OSError as exc:
        raise DatabaseUnreadable(str(path), f"it cannot be read: {exc.strerror or exc}") from exc
    if not header:
        return None
    if not header.startswith(SQLITE_HEADER):
        raise DatabaseUnreadable(str(path), "it is not an SQLite database")
    tables, revisions = _read_schema(path, wal_mode=len(header) > WAL_FLAG and header[WAL_FLAG] == 2)
    if not tables:
        return None
    if not tables >= PALIMPSEST_TABLES:
        raise DatabaseUnreadable(str(path), _foreign_reason(tables, revisions))
    if not revisions:
        raise DatabaseUnreadable(
            str(path),
            "it has Palimpsest's tables but no schema revision (its alembic_version table is "
            f"{'empty' if VERSION_TABLE in tables else 'missing'}), so it is not known how to upgrade it",
        )
    if len(revisions) > 1:
        raise DatabaseUnreadable(str(path), f"it records several schema revisions at once ({', '.join(revisions)})")
    revision = revisions[0]
    if revision not in known_revisions:
        raise DatabaseTooNew(str(path), _shown(revision))
    return revision


def _read_schema(path: Path, *, wal_mode: bool) -> tuple[set[str], list[str]]:
    """The file's table names and the revisions in its alembic_version table, read without writing anything."""
    try:
        with closing(sqlite3.connect(_read_only_uri(path, wal_mode), uri=True, timeout=BUSY_SECONDS)) as conn:
            tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            tables.discard("sqlite_sequence")
            revisions: list[str] = []
            if VERSION_TABLE in tables:
                columns = {str(r[1]) for r in conn.execute(f"PRAGMA table_info({VERSION_TABLE})")}
                if "version_num" in columns:
                    revisions = [str(r[0]) for r in conn.execute(f"SELECT version_num FROM {VERSION_TABLE}")]
    except sqlite3.DatabaseError as exc:
        raise DatabaseUnreadable(str(path), f"SQLite cannot read it: {exc}") from exc
    return tables, revisions


def _read_only_uri(path: Path, wal_mode: bool) -> str:
    """mode=ro; for a WAL-mode file also immutable=1 unless its -wal and -shm both exist already (a live WAL must be
    read, and then SQLite has nothing to create), since SQLite would create them even for a read-only connection.
    A file in rollback-journal mode is read normally (mode=ro creates nothing and waits for a writer to finish)."""
    base = path.resolve().as_uri() + "?mode=ro"
    live_wal = path.with_name(path.name + "-wal").exists() and path.with_name(path.name + "-shm").exists()
    return base + "&immutable=1" if wal_mode and not live_wal else base


def _foreign_reason(tables: set[str], revisions: list[str]) -> str:
    others = sorted(tables - {VERSION_TABLE})
    more = len(others) - NAMES_SHOWN
    named = ", ".join(others[:NAMES_SHOWN]) + (f" and {more} more" if more > 0 else "")
    what = f"its tables are {named}" if others else "it has no tables but alembic_version"
    alembic = f"; it uses Alembic too, at revision {_shown(revisions[0])}" if revisions else ""
    return f"it is another program's SQLite database: {what}, none of them Palimpsest's{alembic}"


def _shown(revision: str) -> str:
    return revision if len(revision) <= 40 else revision[:39] + "…"
