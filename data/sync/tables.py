"""Which tables and columns sync, and how the current state of each synced row is read as plain values."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from domain.sync.records import WHOLE

Key = tuple[str, str, str]  # kind, key, field


@dataclass(frozen=True)
class Table:
    """A table synced row by row (last writer wins on the whole row)."""

    kind: str
    name: str
    keys: tuple[str, ...]
    local: frozenset[str] = frozenset()  # columns each device keeps for itself


ROW_TABLES = (
    Table("provider", "providers", ("id",)),
    Table("agent", "agents", ("id",)),
    Table("message", "messages", ("session_id", "id"), frozenset({"seq", "active", "rev"})),
    # the full text of a truncated tool result: its compressed bytes travel as a blob named by `sha256`
    Table("tool_output", "tool_output_archive", ("message_id",), frozenset({"data"})),
    Table("compaction", "compactions", ("session_id", "created_at", "trigger"), frozenset({"id", "boundary"})),
    Table("memory", "memories", ("id",)),
    Table("model", "models", ("provider_id", "id")),
    Table("mcp_server", "mcp_servers", ("name",)),
)
BY_KIND = {t.kind: t for t in ROW_TABLES}
# session columns that sync field by field; the others are this device's own (counts, totals, preview)
SESSION_FIELDS = ("title", "current_agent_id", "is_active", "deleted_at", "created_at", "updated_at",
                  "current_provider_id", "current_model_id", "reasoning", "system_prompt", "compaction_count")
CHECKPOINT, LEAF = "checkpoint", "leaf"  # derived: [summary, id of the last summarized message]; the active leaf


def digest(value: Any) -> str:
    """A short hash of a value's canonical JSON."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


def row_key(table: Table, row: dict[str, Any]) -> str:
    return json.dumps([row[k] for k in table.keys], separators=(",", ":"))


def columns(conn: Connection, table: str) -> list[str]:
    return [r[1] for r in conn.exec_driver_sql(f"PRAGMA table_info({table})")]


def synced_columns(conn: Connection, table: Table) -> list[str]:
    return [c for c in columns(conn, table.name) if c not in table.local]


def read_rows(conn: Connection, table: Table) -> Iterator[tuple[str, dict[str, Any]]]:
    """(key, synced values) of every row of a table."""
    names = synced_columns(conn, table)
    for values in conn.exec_driver_sql(f"SELECT {', '.join(names)} FROM {table.name}"):
        row = dict(zip(names, values, strict=True))
        yield row_key(table, row), row


def read_sessions(conn: Connection) -> Iterator[tuple[str, dict[str, Any]]]:
    """(id, synced fields) of every session, the checkpoint and active leaf included."""
    leaves: dict[str, str] = dict(conn.exec_driver_sql(
        "SELECT session_id, id FROM messages m WHERE active = 1 AND seq ="
        " (SELECT max(seq) FROM messages WHERE session_id = m.session_id AND active = 1)").all())
    through = dict(((sid, seq), mid) for sid, seq, mid in conn.exec_driver_sql(
        "SELECT m.session_id, m.seq, m.id FROM messages m JOIN sessions s ON s.id = m.session_id"
        " AND s.compact_boundary = m.seq"))
    names = ", ".join(SESSION_FIELDS)
    for sid, summary, boundary, *values in conn.exec_driver_sql(
            f"SELECT id, compacted_summary, compact_boundary, {names} FROM sessions"):
        fields = dict(zip(SESSION_FIELDS, values, strict=True))
        fields[CHECKPOINT] = [summary, through.get((sid, boundary))] if summary is not None else None
        fields[LEAF] = leaves.get(sid)
        yield sid, fields


def current_state(conn: Connection) -> dict[Key, Any]:
    """Every synced value now, by (kind, key, field)."""
    state: dict[Key, Any] = {}
    for sid, fields in read_sessions(conn):
        for name, value in fields.items():
            state[("session", sid, name)] = value
    for table in ROW_TABLES:
        for key, row in read_rows(conn, table):
            state[(table.kind, key, WHOLE)] = row
    return state
