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

from data.db.inspection import VERSION_TABLE, inspect_file
from data.db.schema_version import shipped_revisions
from data.paths import database_path
from domain.models import Provider, ProviderApi, ProviderType

BUSY_SECONDS = 30.0
BUILT_IN_ORDER = {"anthropic": 0, "openai": 1, "gemini": 2}  # as SqlProviderRepository.list() orders them


def current_providers(home: Path | None = None) -> list[Provider] | None:
    """The providers as SqlProviderRepository.list() returns them, or None when the Storage must be opened first.

    Raises what Storage.open raises for a file that is not Palimpsest's or is a newer Palimpsest's."""
    path = database_path(home)
    shipped = shipped_revisions()
    if shipped is None or not path.is_file() or inspect_file(path, shipped.known) != shipped.head:
        return None
    try:
        with closing(sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)) as conn:
            conn.execute("BEGIN")  # one snapshot: the revision and the rows read together
            revisions = [str(r[0]) for r in conn.execute(f"SELECT version_num FROM {VERSION_TABLE}")]
            rows = conn.execute("SELECT id, name, type, base_url, is_active, api FROM providers").fetchall()
            conn.execute("COMMIT")
    except sqlite3.Error:
        return None  # whatever it is, opening the Storage reports it properly
    if revisions != [shipped.head]:
        return None
    try:
        providers = [Provider(id=str(i), name=str(n), type=ProviderType(t), base_url=u, is_active=bool(a),
                              api=ProviderApi.stored(api)) for i, n, t, u, a, api in rows]
    except ValueError:  # a provider type this version does not know
        return None
    if not set(BUILT_IN_ORDER) <= {p.id for p in providers}:
        return None  # not seeded yet
    return sorted(providers, key=lambda p: (BUILT_IN_ORDER.get(p.id, 9), p.name.lower()))
