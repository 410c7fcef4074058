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
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from data.db.built_in import BUILT_IN_ORDER as BUILT_IN_ORDER  # re-exported
from data.db.inspection import VERSION_TABLE, inspect_file
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


_SESSIONS = ("SELECT id, title, current_agent_id, created_at, updated_at, message_count, last_message_preview,"
             " is_active, deleted_at, compacted_summary, compact_boundary, compaction_count, total_input_tokens,"
             " total_output_tokens, total_cache_read_tokens, flushed_in_compaction_cycle, current_provider_id,"
             " current_model_id, reasoning, system_prompt, web_search FROM sessions WHERE deleted_at IS NULL"
             " ORDER BY updated_at DESC, created_at DESC, id")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _at(micros: int | None) -> datetime | None:
    return None if micros is None else _EPOCH + timedelta(0, 0, int(micros))  # as rows.UtcTimestamp reads it


def current_sessions(home: Path | None = None) -> list[Session] | None:
    """The sessions not deleted, as SqlSessionRepository.list() returns them, or None when the Storage must be
    opened first (`palimpsest sessions list` without SQLAlchemy)."""
    rows = _snapshot(home, _SESSIONS)
    if rows is None:
        return None
    return [Session(id=r[0], title=r[1], current_agent_id=r[2], created_at=_at(r[3]) or _EPOCH,
                    updated_at=_at(r[4]) or _EPOCH, message_count=r[5], last_message_preview=r[6],
                    is_active=bool(r[7]), deleted_at=_at(r[8]), compacted_summary=r[9], compact_boundary=r[10],
                    compaction_count=r[11], total_input_tokens=r[12], total_output_tokens=r[13],
                    total_cache_read_tokens=r[14], flushed_in_compaction_cycle=bool(r[15]),
                    current_provider_id=r[16], current_model_id=r[17], reasoning=r[18], system_prompt=r[19],
                    web_search=None if r[20] is None else bool(r[20]))
            for r in rows]
