"""Applies remote change files to the local store in one transaction: last writer wins per field, tombstones,
messages as a union; the conversations touched are then put in the canonical order."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from data.sync.order import attachment_digests, renumber, set_checkpoint, set_leaf
from data.sync.shadow import Shadow, load_shadow, load_times, save_shadow
from data.sync.tables import (
    BY_KIND,
    CHECKPOINT,
    LEAF,
    SESSION_FIELDS,
    Key,
    Table,
    current_state,
    digest,
    synced_columns,
)
from domain.sync.hlc import HybridClock, made_at
from domain.sync.merge import keeps_deleted, wins
from domain.sync.records import DELETED, KINDS, WHOLE, Change, ChangeFile


@dataclass
class Merge:
    """The state of one application: the shadow as it becomes, what changed, what to tell the person."""

    conn: Connection
    shadow: Shadow
    local: dict[Key, Any]
    me: str = ""
    times: dict[Key, int] = field(default_factory=dict)  # when this device last changed a field (wall ms)
    dirty: set[Key] = field(default_factory=set)
    touched: set[str] = field(default_factory=set)  # sessions whose messages changed
    leaves: dict[str, str] = field(default_factory=dict)
    checkpoints: dict[str, Any] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    applied: int = 0
    released: set[str] = field(default_factory=set)  # attachment files whose messages were deleted
    columns: dict[str, list[str]] = field(default_factory=dict)  # per table, read once
    next_seq: dict[str, int] = field(default_factory=dict)  # per session: the seq a new message takes
    trashed: dict[str, tuple[Any, str]] = field(default_factory=dict)  # per session: (deleted_at, title)
    blob: Callable[[str], bytes | None] = lambda _sha: None  # a blob fetched for this merge, by its hash

    @property
    def raw(self) -> Any:
        """The SQLite connection under the transaction (row by row, without SQLAlchemy's per-statement cost)."""
        return self.conn.connection.dbapi_connection

    def synced(self, table: Table) -> list[str]:
        if table.name not in self.columns:
            self.columns[table.name] = synced_columns(self.conn, table)
        return self.columns[table.name]

    def set_shadow(self, key: Key, value_digest: str, stamp: str) -> None:
        self.shadow[key] = (value_digest, stamp)
        self.dirty.add(key)

    def drop_shadow(self, kind: str, key: str) -> None:
        for k in [k for k in self.shadow if k[0] == kind and k[1] == key]:
            del self.shadow[k]
            self.dirty.add(k)

    def pending_locally(self, key: Key) -> bool:
        """Whether the local value changed since the last sync (it is sent next and wins then)."""
        if key not in self.local:
            return False
        known = self.shadow.get(key)
        return known is None or known[0] != digest(self.local[key])


def apply_files(conn: Connection, files: Sequence[ChangeFile], me: str, clock: HybridClock,
                blob: Callable[[str], bytes | None] | None = None) -> Merge:
    """Applies the files' changes (kinds in dependency order, each kind in clock order); `blob` reads a fetched blob
    (an archived tool output's bytes)."""
    merge = Merge(conn, load_shadow(conn), current_state(conn), me, load_times(conn))
    if blob is not None:
        merge.blob = blob
    changes = [c for f in files for c in f.changes]
    for c in changes:
        clock.observe(c.stamp)
    rank = {k: i for i, k in enumerate(KINDS)}
    for change in sorted(changes, key=lambda c: (rank.get(c.kind, len(rank)), c.stamp)):
        if change.kind not in rank:
            continue  # a kind from a newer version: ignored
        if change.is_tombstone:
            _tombstone(merge, change)
        else:
            _field(merge, change)
    for sid in sorted(merge.touched):
        if conn.exec_driver_sql("SELECT 1 FROM sessions WHERE id = ?", (sid,)).scalar():
            renumber(conn, sid)
    for sid, leaf in merge.leaves.items():
        set_leaf(conn, sid, leaf)
    for sid, value in merge.checkpoints.items():
        if not set_checkpoint(conn, sid, value):
            merge.notices.append(f"The summary of conversation {sid} waits for its messages (next sync).")
    save_shadow(conn, merge.shadow, merge.dirty)
    return merge


def _newest(merge: Merge, kind: str, key: str) -> str | None:
    stamps = [s for (k, kk, f), (_, s) in merge.shadow.items() if k == kind and kk == key and f != DELETED]
    return max(stamps, default=None)


def _tombstone(merge: Merge, c: Change) -> None:
    gone = merge.shadow.get((c.kind, c.key, DELETED))
    if gone is not None and gone[1] >= c.stamp:
        return
    newest = _newest(merge, c.kind, c.key)
    if newest is not None and newest > c.stamp:
        return  # changed after the delete (another device): kept
    if c.kind != "session" and _changed_here_later(merge, (c.kind, c.key, WHOLE), c.stamp):
        return  # changed here after the delete, not yet sent: sent next, newer than the delete, and kept
    if c.kind == "session":
        if _keeps_session(merge, c):
            return
        merge.released.update(r[0] for r in merge.conn.exec_driver_sql(
            "SELECT a.sha256 FROM message_attachments a JOIN messages m ON m.id = a.message_id"
            " WHERE m.session_id = ?", (c.key,)))
        merge.conn.exec_driver_sql("DELETE FROM sessions WHERE id = ?", (c.key,))
        for kind in ("message", "compaction"):
            for k in [k for k in merge.shadow if k[0] == kind and json.loads(k[1])[0] == c.key]:
                del merge.shadow[k]
                merge.dirty.add(k)
    else:
        table = BY_KIND[c.kind]
        values = json.loads(c.key)
        where = " AND ".join(f"{k} = ?" for k in table.keys)
        if c.kind == "message":
            merge.released.update(r[0] for r in merge.conn.exec_driver_sql(
                "SELECT sha256 FROM message_attachments WHERE message_id = ?", (values[1],)))
        merge.conn.exec_driver_sql(f"DELETE FROM {table.name} WHERE {where}", tuple(values))
        if c.kind == "message":
            merge.touched.add(values[0])
    merge.drop_shadow(c.kind, c.key)
    merge.set_shadow((c.kind, c.key, DELETED), "", c.stamp)
    merge.applied += 1


def _changed_here_later(merge: Merge, key: Key, stamp: str) -> bool:
    """Whether the field changed here since the last sync, later than `stamp` (or at a time not known)."""
    known = merge.shadow.get(key)
    if known is None or not merge.pending_locally(key):
        return False
    made = made_at(merge.times.get(key), merge.me, known[1])
    return made is None or made.text() > stamp


def _keeps_session(merge: Merge, c: Change) -> bool:
    """A conversation deleted on another device is kept here when a message was added to it after the delete (or
    is not yet sent): everything of it is then sent again, newer than the delete."""
    mine = [k for k in merge.local if k[0] == "message" and json.loads(k[1])[0] == c.key]
    unsent = any(merge.pending_locally(k) for k in mine)
    newest = max((merge.shadow[k][1] for k in mine if k in merge.shadow), default=None)
    if not unsent and not keeps_deleted(c.stamp, newest):
        return False
    title = merge.local.get(("session", c.key, "title"), c.key)
    merge.notices.append(f"Conversation {title!r} was deleted on another device but has newer messages here: kept.")
    for k in [k for k in merge.shadow if (k[0] == "session" and k[1] == c.key) or k in mine]:
        del merge.shadow[k]
        merge.dirty.add(k)
    return True


def _field(merge: Merge, c: Change) -> None:
    key: Key = (c.kind, c.key, c.field)
    gone = merge.shadow.get((c.kind, c.key, DELETED))
    if gone is not None and gone[1] > c.stamp:
        return
    known = merge.shadow.get(key)
    if known is not None and not wins(c.stamp, known[1]):
        return
    value_digest = digest(c.value)
    if known is not None and digest(merge.local.get(key)) != value_digest and _changed_here_later(merge, key, c.stamp):
        return  # changed here since the last sync, later than this: sent next with the time it was made; wins
    if known is not None and c.kind != "session" and key not in merge.local:
        deleted = made_at(merge.times.get((c.kind, c.key, DELETED)), merge.me, known[1])
        if deleted is None or deleted.text() > c.stamp:
            return  # deleted here since the last sync, later than this change: the delete is sent next; wins
    # never synced here (a row both devices had before their first sync, or sync set up again): the remote's wins
    if c.kind == "session":
        if c.field not in SESSION_FIELDS and c.field not in (LEAF, CHECKPOINT):
            return  # a field from a newer version: ignored
        _session_field(merge, c)
    elif not _row(merge, BY_KIND[c.kind], c):
        return
    if gone is not None:
        del merge.shadow[(c.kind, c.key, DELETED)]
        merge.dirty.add((c.kind, c.key, DELETED))
    merge.set_shadow(key, value_digest, c.stamp)
    merge.local[key] = c.value  # as stored now: a later change of it in this batch is not taken for a local one
    merge.applied += 1


def _session_field(merge: Merge, c: Change) -> None:
    conn = merge.conn
    if not conn.exec_driver_sql("SELECT 1 FROM sessions WHERE id = ?", (c.key,)).scalar():
        conn.exec_driver_sql("INSERT INTO sessions (id, title, message_count, is_active, created_at, updated_at)"
                             " VALUES (?, '', 0, 1, 0, 0)", (c.key,))
    if c.field == LEAF:
        if c.value is not None:
            merge.leaves[c.key] = c.value
    elif c.field == CHECKPOINT:
        merge.checkpoints[c.key] = c.value
    else:
        conn.exec_driver_sql(f"UPDATE sessions SET {c.field} = ? WHERE id = ?", (c.value, c.key))


def _row(merge: Merge, table: Table, c: Change) -> bool:
    raw = merge.raw
    row: dict[str, Any] = dict(c.value)
    names = [n for n in merge.synced(table) if n in row]
    extra: dict[str, Any] = {}
    if table.kind == "message":
        session_id = row["session_id"]
        if session_id not in merge.next_seq:
            if raw.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
                merge.notices.append(f"A message of an unknown conversation {session_id} was left for later.")
                return False
            merge.next_seq[session_id] = int(raw.execute(
                "SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE session_id = ?", (session_id,)).fetchone()[0])
        _undelete_for(merge, session_id, c.stamp)
        extra = {"seq": merge.next_seq[session_id], "active": 0, "rev": 1}
        merge.touched.add(session_id)
    elif table.kind == "compaction":
        extra = {"boundary": 0}
        merge.touched.add(row["session_id"])
    elif table.kind == "tool_output" and raw.execute("SELECT 1 FROM tool_output_archive WHERE message_id = ?",
                                                     (row["message_id"],)).fetchone() is None:
        sha = str(row.get("sha256") or "")
        data = merge.blob(sha) if sha else None
        if data is None:
            merge.notices.append(f"The full text of tool result {row['message_id']} was not on the remote: the "
                                 "truncated result is kept.")
            return False
        merge.released.add(sha)  # kept in the database from now on: the fetched file goes after the commit
        extra = {"data": data}
    where = " AND ".join(f"{k} = ?" for k in table.keys)
    key_values = tuple(row[k] for k in table.keys)
    try:
        if raw.execute(f"SELECT 1 FROM {table.name} WHERE {where}", key_values).fetchone() is not None:
            updated = [n for n in names if n not in table.keys]
            raw.execute(f"UPDATE {table.name} SET {', '.join(f'{n} = ?' for n in updated)} WHERE {where}",
                        (*(row[n] for n in updated), *key_values))
        else:
            inserted = {**{n: row[n] for n in names}, **extra}
            raw.execute(f"INSERT INTO {table.name} ({', '.join(inserted)}) VALUES"
                        f" ({', '.join('?' for _ in inserted)})", tuple(inserted.values()))
            if table.kind == "message":
                merge.next_seq[row["session_id"]] += 1
    except (IntegrityError, sqlite3.IntegrityError) as exc:
        merge.notices.append(f"A {table.kind} from another device could not be stored here "
                             f"({getattr(exc, 'orig', exc)}).")
        return False
    if table.kind == "message":
        raw.execute("DELETE FROM message_attachments WHERE message_id = ?", (row["id"],))
        shas = attachment_digests(row.get("attachments"))
        if shas:
            raw.executemany("INSERT INTO message_attachments (message_id, position, sha256) VALUES (?, ?, ?)",
                            [(row["id"], i, sha) for i, sha in enumerate(shas)])
    return True


def _undelete_for(merge: Merge, session_id: str, stamp: str) -> None:
    """A message added after the conversation was moved to the trash on another device brings it back."""
    deleted = merge.shadow.get(("session", session_id, "deleted_at"))
    if deleted is None or stamp <= deleted[1]:
        return
    if session_id not in merge.trashed:
        merge.trashed[session_id] = merge.raw.execute(
            "SELECT deleted_at, title FROM sessions WHERE id = ?", (session_id,)).fetchone()
    deleted_at, title = merge.trashed[session_id]
    if deleted_at is not None:
        merge.raw.execute("UPDATE sessions SET deleted_at = NULL WHERE id = ?", (session_id,))
        merge.trashed[session_id] = (None, title)
        merge.notices.append(f"Conversation {title!r} was deleted but got a newer message: restored.")
