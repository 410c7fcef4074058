"""SessionRepository over SQLite: sessions, usage totals, compactions, soft delete, full-text search."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, case, literal, select, text, update

from data.db.engine import Database
from data.db.fts import fts_query
from data.db.mappers import compaction_to_domain, session_onto_row, session_to_domain
from data.db.records import SESSION_COLUMNS, records
from data.db.rows import AgentRow, CompactionRow, MessageAttachmentRow, MessageRow, SessionRow
from data.db.search_backlog import SearchBacklog
from data.db.session_rules import check_compaction, check_usage
from domain.errors import InvalidInput, NotFound
from domain.models import CompactionRecord, Session, SessionId, Usage
from domain.ports import SESSION_FIELDS, SessionSearchHit

_MESSAGE_HITS = text(
    "SELECT m.session_id, snippet(messages_fts, -1, char(2), char(3), '…', 12), bm25(messages_fts), m.id"
    " FROM messages_fts JOIN messages m ON m.rowid = messages_fts.rowid"
    " WHERE messages_fts MATCH :q ORDER BY rank LIMIT :n"
)
_MESSAGE_HITS_NEWEST = text(
    "SELECT m.session_id, snippet(messages_fts, -1, char(2), char(3), '…', 12), bm25(messages_fts), m.id"
    " FROM messages_fts JOIN messages m ON m.rowid = messages_fts.rowid"
    " WHERE messages_fts MATCH :q AND messages_fts.rowid >= :floor ORDER BY rank LIMIT :n"
)
_NEWEST_FLOOR = text(
    "SELECT rowid FROM messages_fts WHERE messages_fts MATCH :q ORDER BY rowid DESC LIMIT 1 OFFSET :k"
)
RANKED_MATCHES = 10_000  # a word in more messages than this is ranked among its newest matches (exact bm25 of all
# of them takes SQLite a quarter of a second at 180,000 matches)
_SESSION_HITS = text(
    "SELECT s.id, snippet(sessions_fts, -1, char(2), char(3), '…', 12), bm25(sessions_fts), NULL"
    " FROM sessions_fts JOIN sessions s ON s.rowid = sessions_fts.rowid"
    " WHERE sessions_fts MATCH :q ORDER BY rank LIMIT :n"
)


_GET = f"SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?"  # plain SQL: every turn reads its session
_SESSIONS = cast(Table, SessionRow.__table__)
_ADD_USAGE = ("UPDATE sessions SET total_input_tokens = total_input_tokens + ?, total_output_tokens ="  # every round
              " total_output_tokens + ?, total_cache_read_tokens = total_cache_read_tokens + ? WHERE id = ?")

class SqlSessionRepository:
    """Sessions. `update` writes what callers own; message, token and compaction counters are kept by the store."""

    def __init__(self, db: Database, ranked_matches: int = RANKED_MATCHES,
                 on_released: Callable[[set[str]], None] | None = None, backlog: SearchBacklog | None = None) -> None:
        self.on_released = on_released  # told the attachment files no message refers to any more (after a purge)
        self._db = db
        self.ranked_matches = ranked_matches
        self._backlog = backlog if backlog is not None else SearchBacklog(db.read_sql, db.write_sql)

    def create(self, session: Session) -> Session:
        with self._db.write() as s:
            if s.get(SessionRow, session.id) is not None:
                raise InvalidInput(f"A session with id {session.id!r} already exists.")
            if session.current_agent_id is not None and s.get(AgentRow, session.current_agent_id) is None:
                raise NotFound("agent", session.current_agent_id)
            row = SessionRow(id=session.id, created_at=session.created_at, message_count=0,
                             last_message_preview=session.last_message_preview, compaction_count=0,
                             total_input_tokens=0, total_output_tokens=0, total_cache_read_tokens=0)
            session_onto_row(session, row)
            s.add(row)
            s.flush()
            return session_to_domain(row)

    def get(self, session_id: SessionId) -> Session | None:
        with self._db.read_sql() as con:
            found = records(con.execute(_GET, (session_id,)))
        return session_to_domain(found[0]) if found else None

    def list(self, *, include_deleted: bool = False) -> Sequence[Session]:
        query = select(SessionRow).order_by(
            SessionRow.updated_at.desc(), SessionRow.created_at.desc(), SessionRow.id
        )
        if not include_deleted:
            query = query.where(SessionRow.deleted_at.is_(None))
        with self._db.read() as s:
            return [session_to_domain(r) for r in s.scalars(query)]

    def update(self, session: Session) -> Session:
        with self._db.write() as s:
            row = s.get(SessionRow, session.id)
            if row is None:
                raise NotFound("session", session.id)
            if session.current_agent_id is not None and s.get(AgentRow, session.current_agent_id) is None:
                raise NotFound("agent", session.current_agent_id)
            session_onto_row(session, row)
            s.flush()
            return session_to_domain(row)

    def update_fields(self, session_id: SessionId, **fields: Any) -> Session:
        unknown = set(fields) - SESSION_FIELDS
        if unknown:
            raise InvalidInput(f"Session fields {sorted(unknown)} cannot be updated one by one.")
        values: dict[str, Any] = dict(fields)
        if "updated_at" in values:  # a stale clock never moves it backwards
            column = _SESSIONS.c.updated_at
            at = literal(values["updated_at"], column.type)
            values["updated_at"] = case((column > at, column), else_=at)
        with self._db.write() as s:
            statement = update(_SESSIONS).where(_SESSIONS.c.id == session_id).returning(*_SESSIONS.c)
            row = s.execute(statement.values(**values) if values else select(*_SESSIONS.c).where(
                _SESSIONS.c.id == session_id)).first()
            if row is None:
                raise NotFound("session", session_id)
            return session_to_domain(row)

    def add_usage(self, session_id: SessionId, usage: Usage) -> None:
        check_usage(usage)
        with self._db.known_write_sql() as con:  # the totals: no message read changes with them, no cache keeps them
            if not con.execute(_ADD_USAGE, (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens,
                                            session_id)).rowcount:
                raise NotFound("session", session_id)

    def apply_compaction(
        self, session_id: SessionId, *, summary: str, boundary: int, record: CompactionRecord
    ) -> Session:
        check_compaction(summary, boundary)
        with self._db.write() as s:
            row = s.get(SessionRow, session_id)
            if row is None:
                raise NotFound("session", session_id)
            row.compacted_summary, row.compact_boundary = summary, boundary
            row.compaction_count = row.compaction_count + 1
            row.flushed_in_compaction_cycle = False
            s.add(CompactionRow(session_id=session_id, created_at=record.created_at, boundary=boundary,
                                tokens_before=record.tokens_before, tokens_after=record.tokens_after,
                                summary_tokens=record.summary_tokens, trigger=record.trigger, summary=summary,
                                through_message_id=record.through_id))
            s.flush()
            return session_to_domain(row)

    def reset_context(self, session_id: SessionId, record: CompactionRecord | None) -> Session:
        with self._db.write() as s:
            row = s.get(SessionRow, session_id)
            if row is None:
                raise NotFound("session", session_id)
            row.compacted_summary, row.compact_boundary, row.flushed_in_compaction_cycle = None, None, False
            if record is not None:
                row.updated_at = max(row.updated_at, record.created_at)
                s.add(CompactionRow(session_id=session_id, created_at=record.created_at, boundary=record.boundary,
                                    tokens_before=record.tokens_before, tokens_after=record.tokens_after,
                                    summary_tokens=0, trigger=record.trigger, summary=None,
                                    through_message_id=record.through_id))
            s.flush()
            return session_to_domain(row)

    def compactions(self, session_id: SessionId) -> Sequence[CompactionRecord]:
        query = select(CompactionRow).where(CompactionRow.session_id == session_id).order_by(CompactionRow.id)
        with self._db.read() as s:
            return [compaction_to_domain(r) for r in s.scalars(query)]

    def revise_checkpoint(self, session_id: SessionId, summary: str) -> None:
        with self._db.write() as s:
            row = s.get(SessionRow, session_id)
            if row is None:
                raise NotFound("session", session_id)
            record = s.scalars(select(CompactionRow).where(CompactionRow.session_id == session_id,
                                                           CompactionRow.boundary == row.compact_boundary)
                               .order_by(CompactionRow.id.desc()).limit(1)).first()
            if record is not None:
                record.summary = summary

    def delete(self, session_id: SessionId, at: datetime) -> None:
        self._set_deleted(session_id, at)

    def restore(self, session_id: SessionId) -> None:
        self._set_deleted(session_id, None)

    def purge(self, session_id: SessionId) -> None:
        with self._db.write() as s:
            row = s.get(SessionRow, session_id)
            if row is None:
                raise NotFound("session", session_id)
            held = set(s.scalars(
                select(MessageAttachmentRow.sha256)
                .join(MessageRow, MessageRow.id == MessageAttachmentRow.message_id)
                .where(MessageRow.session_id == session_id)
            ))
            s.delete(row)
            s.flush()  # the cascade removes the session's references before the count below
            released = {sha for sha in held if not s.scalar(
                select(MessageAttachmentRow.sha256).where(MessageAttachmentRow.sha256 == sha).limit(1))}
        if released and self.on_released is not None:  # after the commit: a file goes only once nothing refers to it
            self.on_released(released)

    def search(self, query: str, limit: int = 50) -> Sequence[SessionSearchHit]:
        match = fts_query(query)
        if match is None or limit <= 0:
            return []
        self._backlog.index_all()  # the messages stored since the last batch are found too
        best: dict[str, tuple[float, str, str | None]] = {}
        params = {"q": match, "n": limit * 20}
        with self._db.read() as s:
            floor = s.execute(_NEWEST_FLOOR, {"q": match, "k": self.ranked_matches}).scalar()
            messages = _MESSAGE_HITS if floor is None else _MESSAGE_HITS_NEWEST
            if floor is not None:  # a common word: its best matches spread over many sessions, fewer snippets do
                params["n"] = limit * 5
            for statement in (_SESSION_HITS, messages):
                for session_id, snippet, score, message_id in s.execute(statement, {**params, "floor": floor}):
                    if session_id not in best or score < best[session_id][0]:
                        best[session_id] = (float(score), str(snippet), message_id)
            if not best:
                return []
            rows = s.scalars(select(SessionRow).where(SessionRow.id.in_(best), SessionRow.deleted_at.is_(None)))
            titles = {r.id: (r.title, not r.is_active) for r in rows}
        ranked = sorted((score, sid) for sid, (score, _, _) in best.items() if sid in titles)
        return [SessionSearchHit(sid, titles[sid][0], best[sid][1], best[sid][2], titles[sid][1])
                for _, sid in ranked[:limit]]

    def _set_deleted(self, session_id: SessionId, at: datetime | None) -> None:
        with self._db.write() as s:
            row = s.get(SessionRow, session_id)
            if row is None:
                raise NotFound("session", session_id)
            row.deleted_at = at
