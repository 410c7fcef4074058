"""What a chat turn reads and writes beside its messages, over sqlite3: turn leases, token calibration, the
providers' own numbers, servers' probe answers and whether an agent has knowledge folders (the contracts of
data.db.turn_leases, settings, provider_counts, server_probes and the document store's has_knowledge)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Mapping
from datetime import UTC, datetime
from typing import Any

from data.db.lease_rules import in_the_way, process_gone, to_lease
from data.lite.db import LiteDatabase, Record, micros
from data.lite.fallback import Delegating
from data.providers.probe_store import PROBES_KEPT, Recalled
from domain.errors import InvalidInput, NotFound
from domain.models import AgentId, SessionId
from domain.ports import TurnLease
from domain.provider_rules import CutSign

_LEASES = "SELECT session_id, owner, holding, holder, host, pid, acquired_at, expires_at FROM turn_leases"
_CHUNK = 500  # digests per IN list


class LiteTurnLeases(Delegating):
    """Leases by conversation id (the whole TurnLeases port; another thread's calls go to the full store)."""

    def __init__(self, db: LiteDatabase, full: Callable[[], Any], gone: Callable[[str, int], bool] = process_gone
                 ) -> None:
        super().__init__(db, full)
        self._db = db
        self._gone = gone

    def take(self, lease: TurnLease, now: datetime, *, queue: bool = False) -> TurnLease | None:
        with self._db.write():
            if self._db.value("SELECT 1 FROM sessions WHERE id = ?", (lease.session_id,)) is None:
                raise NotFound("session", lease.session_id)
            live = []
            for row in self._db.records(_LEASES + " WHERE session_id = ?", (lease.session_id,)):
                if row.owner == lease.owner or self._live(row, now):
                    live.append(row)
                else:  # a dead owner's lease or place in the line
                    self._db.run("DELETE FROM turn_leases WHERE session_id = ? AND owner = ?",
                                 (row.session_id, row.owner))
            mine = next((r for r in live if r.owner == lease.owner), None)
            blocker = in_the_way(mine, [r for r in live if r.owner != lease.owner])
            if blocker is not None and not queue:
                return to_lease(blocker)
            acquired = lease.acquired_at if blocker is None or mine is None else mine.acquired_at
            self._db.run("INSERT INTO turn_leases (session_id, owner, holding, holder, host, pid, acquired_at,"
                         " expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, owner) DO UPDATE"
                         " SET holding = excluded.holding, holder = excluded.holder, host = excluded.host,"
                         " pid = excluded.pid, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at",
                         (lease.session_id, lease.owner, blocker is None, lease.holder, lease.host, lease.pid,
                          micros(acquired), micros(lease.expires_at)))
            return to_lease(blocker) if blocker is not None else None

    def renew(self, session_id: SessionId, owner: str, until: datetime) -> bool:
        with self._db.write():
            done = self._db.run("UPDATE turn_leases SET expires_at = ? WHERE session_id = ? AND owner = ?"
                                " AND holding = 1", (micros(until), session_id, owner))
            return bool(done.rowcount)

    def release(self, session_id: SessionId, owner: str) -> None:
        with self._db.write():
            self._db.run("DELETE FROM turn_leases WHERE session_id = ? AND owner = ?", (session_id, owner))

    def holder(self, session_id: SessionId, now: datetime) -> TurnLease | None:
        rows = self._db.records(_LEASES + " WHERE session_id = ? AND holding = 1", (session_id,))
        return next((to_lease(r) for r in rows if self._live(r, now)), None)

    def _live(self, row: Record, now: datetime) -> bool:
        return bool(row.expires_at > now and not self._gone(row.host, row.pid))


class LiteCalibrationStore(Delegating):
    """Per-model ratio of provider-reported to estimated input tokens."""

    def get(self, key: str) -> float | None:
        ratio = self._lite_db.value("SELECT ratio FROM calibration WHERE key = ?", (key,))
        return float(ratio) if ratio is not None else None

    def put(self, key: str, ratio: float) -> None:
        if not math.isfinite(ratio) or ratio <= 0:
            raise InvalidInput(f"A calibration ratio must be a positive number, not {ratio}.")
        with self._lite_db.write():
            self._lite_db.run("INSERT INTO calibration (key, ratio, updated_at) VALUES (?, ?, ?) ON CONFLICT (key)"
                              " DO UPDATE SET ratio = excluded.ratio, updated_at = excluded.updated_at",
                              (key, ratio, micros(datetime.now(UTC))))


class LiteCutEvidence(Delegating):
    """The last sign of a silent cut, per model."""

    def last(self, model_key: str) -> CutSign | None:
        row = self._lite_db.rows("SELECT reported, estimate FROM cut_evidence WHERE model_key = ?", (model_key,))
        return CutSign(row[0][0], row[0][1]) if row else None

    def put(self, model_key: str, sign: CutSign | None) -> None:
        with self._lite_db.write():
            if sign is None:
                self._lite_db.run("DELETE FROM cut_evidence WHERE model_key = ?", (model_key,))
                return
            self._lite_db.run("INSERT INTO cut_evidence (model_key, reported, estimate, seen_at) VALUES (?, ?, ?, ?)"
                              " ON CONFLICT (model_key) DO UPDATE SET reported = excluded.reported, estimate ="
                              " excluded.estimate, seen_at = excluded.seen_at",
                              (model_key, sign.reported, sign.estimate, micros(datetime.now(UTC))))


class LiteAttachmentCounts(Delegating):
    """Attachment counts by (sha256, count key)."""

    def for_attachments(self, digests: Collection[str]) -> Mapping[tuple[str, str], int]:
        wanted = sorted(set(digests))
        found: dict[tuple[str, str], int] = {}
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start:start + _CHUNK]
            rows = self._lite_db.rows("SELECT sha256, count_key, tokens FROM attachment_counts WHERE sha256 IN"
                                      f" ({', '.join('?' * len(chunk))})", chunk)
            found.update({(digest, key): tokens for digest, key, tokens in rows})
        return found

    def put(self, digest: str, count_key: str, tokens: int) -> None:
        if tokens <= 0:
            return
        with self._lite_db.write():
            self._lite_db.run("INSERT INTO attachment_counts (sha256, count_key, tokens, counted_at) VALUES"
                              " (?, ?, ?, ?) ON CONFLICT (sha256, count_key) DO UPDATE SET tokens = excluded.tokens,"
                              " counted_at = excluded.counted_at",
                              (digest, count_key, tokens, micros(datetime.now(UTC))))


class LiteServerProbes(Delegating):
    """Servers' answers to probes by server URL and request, forgotten after PROBES_KEPT."""

    def __init__(self, db: LiteDatabase, full: Callable[[], Any],
                 now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        super().__init__(db, full)
        self._now = now

    def recall(self, server: str, request: str) -> Recalled | None:
        row = self._lite_db.record("SELECT answer, probed_at FROM server_probes WHERE server = ? AND request = ?",
                                   (server, request))
        if row is None or self._now() - row.probed_at > PROBES_KEPT:
            return None
        return Recalled(None if row.answer is None else json.loads(row.answer))

    def remember(self, server: str, request: str, answer: Any) -> None:
        stored = None if answer is None else json.dumps(answer, separators=(",", ":"))
        with self._lite_db.write():
            self._lite_db.run("INSERT INTO server_probes (server, request, answer, probed_at) VALUES (?, ?, ?, ?)"
                              " ON CONFLICT (server, request) DO UPDATE SET answer = excluded.answer,"
                              " probed_at = excluded.probed_at", (server, request, stored, micros(self._now())))


class LiteDocuments(Delegating):
    """Documents: whether an agent has knowledge folders (read with every turn); the rest through the full store."""

    def has_knowledge(self, agent_id: AgentId | None) -> bool:
        if agent_id is None:
            return False
        found = self._lite_db.value("SELECT 1 FROM knowledge_folders WHERE agent_id = ? LIMIT 1", (agent_id,))
        return found is not None
