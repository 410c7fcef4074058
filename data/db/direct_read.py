"""Reads answered straight from the SQLite file with the standard library, for commands that must start fast.

Opening the Storage imports SQLAlchemy (about 0.2 s). A command that only reads a little, such as
`palimpsest keys status`, reads the file directly instead, but only when opening the Storage would change nothing
it reads: the file is Palimpsest's, already at this version's head revision, and seeded. Otherwise the answer is
None and the caller opens the Storage as usual (which migrates, seeds, or refuses the file with its message).
tests/data/test_direct_read.py holds the answers equal to the repositories'.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from data.db.built_in import BUILT_IN_ORDER as BUILT_IN_ORDER  # re-exported
from data.db.inspection import VERSION_TABLE, inspect_file
from data.db.mappers import session_to_domain
from data.db.records import SESSION_COLUMNS, Record
from data.db.schema_version import shipped_revisions
from data.paths import database_path
from domain.models import Provider, ProviderApi, ProviderType, Session

BUSY_SECONDS = 30.0


def _snapshot(home: Path | None, statement: str) -> list[tuple[Any, ...]] | None:
    """The rows of `statement` read with the revision in one snapshot, or None when the Storage must open first."""
    path = database_path(home)
    shipped = shipped_revisions()
    if shipped is None or not path.is_file() or inspect_file(path, shipped.known) != shipped.head:
        return None
    try:
        with closing(sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)) as conn:
            conn.execute("BEGIN")  # one snapshot: the revision and the rows read together
            revisions = [str(r[0]) for r in conn.execute(f"SELECT version_num FROM {VERSION_TABLE}")]
            rows = conn.execute(statement).fetchall()
            conn.execute("COMMIT")
    except sqlite3.Error:
        return None  # whatever it is, opening the Storage reports it properly
    return rows if revisions == [shipped.head] else None


def current_providers(home: Path | None = None) -> list[Provider] | None:
    """The providers as SqlProviderRepository.list() returns them, or None when the Storage must be opened first.

    Raises what Storage.open raises for a file that is not Palimpsest's or is a newer Palimpsest's."""
    rows = _snapshot(home, "SELECT id, name, type, base_url, is_active, api FROM providers")
    if rows is None:
        return None
    try:
        providers = [Provider(id=str(i), name=str(n), type=ProviderType(t), base_url=u, is_active=bool(a),
                              api=ProviderApi.stored(api)) for i, n, t, u, a, api in rows]
    except ValueError:  # a provider type this version does not know
        return None
    if not set(BUILT_IN_ORDER) <= {p.id for p in providers}:
        return None  # not seeded yet
    return sorted(providers, key=lambda p: (BUILT_IN_ORDER.get(p.id, 9), p.name.lower()))


_SESSIONS = (f"SELECT {SESSION_COLUMNS} FROM sessions WHERE deleted_at IS NULL"
             " ORDER BY updated_at DESC, created_at DESC, id")
_SESSION_NAMES = tuple(name.strip() for name in SESSION_COLUMNS.split(","))


def current_sessions(home: Path | None = None) -> list[Session] | None:
    """The sessions not deleted, as SqlSessionRepository.list() returns them, or None when the Storage must be
    opened first (`palimpsest sessions list` without SQLAlchemy)."""
    rows = _snapshot(home, _SESSIONS)
    if rows is None:
        return None
    return [session_to_domain(Record(_SESSION_NAMES, r)) for r in rows]
