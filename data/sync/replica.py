"""The local store as sync sees it: changes since the last sync (by comparing each synced field with its shadow),
remote files applied in one transaction, this device's id and clock."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection

from data.attachments.files import AttachmentFiles
from data.db.attachment_refs import unreferenced
from data.db.engine import Database
from data.sync.apply import apply_files
from data.sync.order import attachment_digests, renumber
from data.sync.shadow import load_shadow, load_times, save_shadow
from data.sync.tables import Key, current_state, digest
from domain.sync.hlc import HybridClock, Stamp, made_at
from domain.sync.ports import Applied, Pending, Written
from domain.sync.records import DELETED, Change, ChangeFile, CorruptFile

DEVICE_KEY, CLOCK_KEY, WRITTEN_KEY = "device", "clock", "written"


def meta(conn: Connection, key: str) -> Any:
    value = conn.exec_driver_sql("SELECT value FROM sync_meta WHERE key = ?", (key,)).scalar()
    return json.loads(value) if value is not None else None


def set_meta(conn: Connection, key: str, value: Any) -> None:
    conn.exec_driver_sql("INSERT OR REPLACE INTO sync_meta (key, value) VALUES (?, ?)", (key, json.dumps(value)))


class SqlReplica:
    """The Replica port over the SQLite store and its attachment files."""

    def __init__(self, db: Database, files: AttachmentFiles, now_ms: Any = None) -> None:
        self._db, self._files = db, files
        self._now_ms = now_ms or (lambda: int(time.time() * 1000))
        with db.write() as s:
            conn = s.connection()
            device = meta(conn, DEVICE_KEY)
            if device is None:
                device = uuid.uuid4().hex[:16]
                set_meta(conn, DEVICE_KEY, device)
        self.device: str = device

    def _clock(self, conn: Connection) -> HybridClock:
        last = meta(conn, CLOCK_KEY)
        return HybridClock(self.device, Stamp.parse(last) if last else None)

    def applied(self) -> Mapping[str, int]:
        with self._db.read() as s:
            return dict(s.connection().exec_driver_sql("SELECT device, seq FROM sync_applied").all())

    def apply(self, files: Sequence[ChangeFile]) -> Applied:
        with self._db.write() as s:
            conn = s.connection()
            clock = self._clock(conn)
            merge = apply_files(conn, files, self.device, clock, self._staged)
            done: dict[str, int] = dict(conn.exec_driver_sql("SELECT device, seq FROM sync_applied").all())
            for f in files:
                marks = f.covers if f.snapshot else {f.device: f.seq}
                for device, seq in marks.items():
                    if device != self.device and seq > done.get(device, 0):
                        done[device] = seq
            conn.exec_driver_sql("INSERT OR REPLACE INTO sync_applied (device, seq) VALUES (?, ?)",
                                 list(done.items()))
            set_meta(conn, CLOCK_KEY, clock.last.text())
        self._files.delete(unreferenced(self._db, merge.released))  # after the commit, as the store's own purge
        return Applied(merge.applied, tuple(merge.notices))

    def pending(self) -> Pending:
        with self._db.read() as s:
            conn = s.connection()
            state = current_state(conn)
            shadow = load_shadow(conn)
            times = load_times(conn)
            clock = self._clock(conn)
        now = self._now_ms()
        changes: list[Change] = []
        marks: dict[Key, tuple[str, str] | None] = {}
        for key, value in state.items():
            d = digest(value)
            known = shadow.get(key)
            if known is None or known[0] != d:
                made = made_at(times.get(key), self.device, known[1] if known else None)
                stamp = clock.issue(made, now).text()
                changes.append(Change(*key, value, stamp))
                marks[key] = (d, stamp)
        present = {(k, key) for k, key, _ in state}
        sessions_gone = {key for k, key, f in shadow if k == "session" and f != DELETED and (k, key) not in present}
        rows: dict[tuple[str, str], list[Key]] = {}  # the shadow keys of each row not here now
        for k in shadow:
            if (k[0], k[1]) not in present:
                rows.setdefault((k[0], k[1]), []).append(k)
        for (kind, row), keys in rows.items():
            if all(k[2] == DELETED for k in keys):
                continue  # its tombstone is synced
            for k in keys:
                marks[k] = None
            if kind in ("message", "compaction") and json.loads(row)[0] in sessions_gone:
                continue  # gone with its conversation: the conversation's tombstone says so
            synced = max(shadow[k][1] for k in keys)
            stamp = clock.issue(made_at(times.get((kind, row, DELETED)), self.device, synced), now).text()
            changes.append(Change(kind, row, DELETED, None, stamp))
            marks[(kind, row, DELETED)] = ("", stamp)
        token = (marks, clock.last.text())
        return Pending(tuple(changes), self.blobs_of(changes), token)

    def blobs_of(self, changes: Sequence[Change]) -> tuple[str, ...]:
        blobs: list[str] = []
        for c in changes:
            if c.kind == "message" and c.value is not None:
                blobs += attachment_digests(c.value.get("attachments"))
            elif c.kind == "tool_output" and c.value is not None and c.value.get("sha256"):
                blobs.append(str(c.value["sha256"]))
        return tuple(dict.fromkeys(blobs))

    def written(self) -> Written | None:
        with self._db.read() as s:
            value = meta(s.connection(), WRITTEN_KEY)
        return Written(int(value["seq"]), value["nonce"]) if value and value["seq"] is not None else None

    def begin_push(self) -> str:
        with self._db.write() as s:
            conn = s.connection()
            value = meta(conn, WRITTEN_KEY) or {"seq": None, "nonce": None}
            if value["nonce"] is None:
                value["nonce"] = uuid.uuid4().hex
                set_meta(conn, WRITTEN_KEY, value)
        return str(value["nonce"])

    def mark_pushed(self, pending: Pending, seq: int) -> None:
        marks: dict[Key, tuple[str, str] | None]
        last: str
        marks, last = pending.token  # type: ignore[misc]
        shadow = {k: v for k, v in marks.items() if v is not None}
        touched = {json.loads(k[1])[0] for k in marks if k[0] in ("message", "compaction")}
        with self._db.write() as s:
            conn = s.connection()
            save_shadow(conn, shadow, set(marks))
            set_meta(conn, WRITTEN_KEY, {"seq": seq, "nonce": None})
            clock = self._clock(conn)
            clock.observe(last)
            set_meta(conn, CLOCK_KEY, clock.last.text())
            busy = {r[0] for r in conn.exec_driver_sql("SELECT session_id FROM turn_leases WHERE holding = 1")}
            for sid in sorted(touched - busy):
                if conn.exec_driver_sql("SELECT 1 FROM sessions WHERE id = ?", (sid,)).scalar():
                    renumber(conn, sid)

    def state(self) -> tuple[Change, ...]:
        with self._db.read() as s:
            conn = s.connection()
            state = current_state(conn)
            shadow = load_shadow(conn)
        out = [Change(*key, value, shadow[key][1]) for key, value in state.items()
               if key in shadow and shadow[key][0] == digest(value)]
        out += [Change(*key, None, stamp) for key, (_, stamp) in shadow.items() if key[2] == DELETED]
        return tuple(out)

    def has_blob(self, sha256: str) -> bool:
        return self._files.exists(sha256) or self._archived(sha256) is not None

    def read_blob(self, sha256: str) -> bytes:
        archived = None if self._files.exists(sha256) else self._archived(sha256)
        return archived if archived is not None else self._files.read(sha256)

    def _archived(self, sha256: str) -> bytes | None:
        """The compressed full text of a truncated tool result, by its hash."""
        with self._db.read() as s:
            data = s.connection().exec_driver_sql(
                "SELECT data FROM tool_output_archive WHERE sha256 = ? LIMIT 1", (sha256,)).scalar()
        return bytes(data) if data is not None else None

    def _staged(self, sha256: str) -> bytes | None:
        """A blob fetched for this merge (kept with the attachment files until then)."""
        return self._files.read(sha256) if self._files.exists(sha256) else None

    def write_blob(self, sha256: str, data: bytes) -> None:
        import hashlib

        if hashlib.sha256(data).hexdigest() != sha256:
            raise CorruptFile(f"attachment {sha256} does not match its hash")
        self._files.put(data)
