"""The sessions a chat turn reads and writes, over sqlite3 (data.db.sessions' contract; the rest through the
full store, see data.lite.storage)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from data.db.mappers import compaction_to_domain, session_to_domain
from data.db.records import SESSION_COLUMNS
from data.db.session_rules import check_compaction, check_usage
from data.lite.db import LiteDatabase, micros
from data.lite.fallback import Delegating
from domain.errors import InvalidInput, NotFound
from domain.models import CompactionRecord, Session, SessionId, Usage
from domain.ports import SESSION_FIELDS

_GET = f"SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?"
_OWNED = ("title", "current_agent_id", "is_active", "deleted_at", "compacted_summary", "compact_boundary",
          "flushed_in_compaction_cycle", "current_provider_id", "current_model_id", "reasoning", "system_prompt",
          "web_search")  # what session_onto_row copies (updated_at: never backwards)
_INSERT = (f"INSERT INTO sessions (id, created_at, updated_at, message_count, last_message_preview, compaction_count,"
           f" total_input_tokens, total_output_tokens, total_cache_read_tokens, {', '.join(_OWNED)})"
           f" VALUES (:id, :created_at, :updated_at, 0, :last_message_preview, 0, 0, 0, 0,"
           f" {', '.join(':' + c for c in _OWNED)})")
_UPDATE = (f"UPDATE sessions SET {', '.join(f'{c} = :{c}' for c in _OWNED)},"
           " updated_at = max(updated_at, :updated_at) WHERE id = :id")
_ADD_USAGE = ("UPDATE sessions SET total_input_tokens = total_input_tokens + ?, total_output_tokens ="
              " total_output_tokens + ?, total_cache_read_tokens = total_cache_read_tokens + ? WHERE id = ?")
_COMPACTIONS = ("SELECT session_id, created_at, boundary, tokens_before, tokens_after, summary_tokens, trigger,"
                " summary, through_message_id FROM compactions WHERE session_id = ? ORDER BY id")
_LOG = ("INSERT INTO compactions (session_id, created_at, boundary, tokens_before, tokens_after, summary_tokens,"
        " trigger, summary, through_message_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
_AGENT = "SELECT 1 FROM agents WHERE id = ?"


class LiteSessionRepository(Delegating):
    """Sessions: reads, creation, updates, usage and compactions; search, delete and purge through the full store."""

    def __init__(self, db: LiteDatabase, full: Any) -> None:
        super().__init__(db, full)
        self._db = db

    def create(self, session: Session) -> Session:
        with self._db.write():
            if self._db.value(_GET, (session.id,)) is not None:
                raise InvalidInput(f"A session with id {session.id!r} already exists.")
            self._check_agent(session)
            values = _owned(session)
            self._db.run(_INSERT, {**values, "id": session.id, "created_at": micros(session.created_at),
                                   "updated_at": micros(session.updated_at),
                                   "last_message_preview": session.last_message_preview})
            return self._stored(session.id)

    def get(self, session_id: SessionId) -> Session | None:
        row = self._db.record(_GET, (session_id,))
        return session_to_domain(row) if row else None

    def update(self, session: Session) -> Session:
        with self._db.write():
            if self._db.value(_GET, (session.id,)) is None:
                raise NotFound("session", session.id)
            self._check_agent(session)
            self._db.run(_UPDATE, {**_owned(session), "id": session.id, "updated_at": micros(session.updated_at)})
            return self._stored(session.id)

    def update_fields(self, session_id: SessionId, **fields: Any) -> Session:
        unknown = set(fields) - SESSION_FIELDS
        if unknown:
            raise InvalidInput(f"Session fields {sorted(unknown)} cannot be updated one by one.")
        sets = [f"{name} = max(updated_at, :updated_at)" if name == "updated_at" else f"{name} = :{name}"
                for name in fields]
        values = {k: micros(v) if k == "updated_at" else v for k, v in fields.items()}
        with self._db.write():
            if sets:
                self._db.run(f"UPDATE sessions SET {', '.join(sets)} WHERE id = :sid", {**values, "sid": session_id})
            return self._stored(session_id)

    def add_usage(self, session_id: SessionId, usage: Usage) -> None:
        check_usage(usage)
        with self._db.write():
            if not self._db.run(_ADD_USAGE, (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens,
                                             session_id)).rowcount:
                raise NotFound("session", session_id)

    def apply_compaction(
        self, session_id: SessionId, *, summary: str, boundary: int, record: CompactionRecord
    ) -> Session:
        check_compaction(summary, boundary)
        with self._db.write():
            self._stored(session_id)
            self._db.run("UPDATE sessions SET compacted_summary = ?, compact_boundary = ?, compaction_count ="
                         " compaction_count + 1, flushed_in_compaction_cycle = 0 WHERE id = ?",
                         (summary, boundary, session_id))
            self._log(session_id, record, boundary=boundary, summary=summary, summary_tokens=record.summary_tokens)
            return self._stored(session_id)

    def reset_context(self, session_id: SessionId, record: CompactionRecord | None) -> Session:
        with self._db.write():
            self._stored(session_id)
            self._db.run("UPDATE sessions SET compacted_summary = NULL, compact_boundary = NULL,"
                         " flushed_in_compaction_cycle = 0 WHERE id = ?", (session_id,))
            if record is not None:
                self._db.run("UPDATE sessions SET updated_at = max(updated_at, ?) WHERE id = ?",
                             (micros(record.created_at), session_id))
                self._log(session_id, record, boundary=record.boundary, summary=None, summary_tokens=0)
            return self._stored(session_id)

    def compactions(self, session_id: SessionId) -> Sequence[CompactionRecord]:
        return [compaction_to_domain(r) for r in self._db.records(_COMPACTIONS, (session_id,))]

    def _log(self, session_id: SessionId, record: CompactionRecord, *, boundary: int, summary: str | None,
             summary_tokens: int) -> None:
        self._db.run(_LOG, (session_id, micros(record.created_at), boundary, record.tokens_before,
                            record.tokens_after, summary_tokens, record.trigger, summary, record.through_id))

    def _check_agent(self, session: Session) -> None:
        if session.current_agent_id is not None and self._db.value(_AGENT, (session.current_agent_id,)) is None:
            raise NotFound("agent", session.current_agent_id)

    def _stored(self, session_id: SessionId) -> Session:
        found = self.get(session_id)
        if found is None:
            raise NotFound("session", session_id)
        return found


def _owned(session: Session) -> dict[str, Any]:
    values = {c: getattr(session, c) for c in _OWNED}
    values["deleted_at"] = micros(session.deleted_at)
    return values
