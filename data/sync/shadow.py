"""What sync keeps beside the synced rows: each field's digest and stamp when last synced (its shadow), and when
this device last changed it."""

from __future__ import annotations

import json

from sqlalchemy import Connection

from data.sync.tables import Key

Shadow = dict[Key, tuple[str, str]]  # (kind, key, field) -> (digest, stamp)


def load_times(conn: Connection) -> dict[Key, int]:
    """When each field (a whole row, a delete) was last changed on this device (kept by migration 0033's and 0035's
    triggers; a row's key written by SQLite's json_array, read back in row_key's form)."""
    return {(k, key if k == "session" else json.dumps(json.loads(key), separators=(",", ":")), f): int(ms)
            for k, key, f, ms in conn.exec_driver_sql("SELECT kind, key, field, ms FROM sync_field_times")}


def load_shadow(conn: Connection) -> Shadow:
    return {(k, key, f): (d, s) for k, key, f, d, s in conn.exec_driver_sql(
        "SELECT kind, key, field, digest, stamp FROM sync_shadow")}


def save_shadow(conn: Connection, shadow: Shadow, dirty: set[Key]) -> None:
    gone = [k for k in dirty if k not in shadow]
    kept = [(*k, *shadow[k]) for k in dirty if k in shadow]
    if gone:
        conn.exec_driver_sql("DELETE FROM sync_shadow WHERE kind = ? AND key = ? AND field = ?", gone)
    if kept:
        conn.exec_driver_sql("INSERT OR REPLACE INTO sync_shadow (kind, key, field, digest, stamp)"
                             " VALUES (?, ?, ?, ?, ?)", kept)
