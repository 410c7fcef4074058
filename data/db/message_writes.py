"""Messages written in bulk (an import's conversation at a time), and what every message write shares: the first
revision of a row and the preview a message gives its session."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Integer, String, Table, bindparam, case, func, insert, text, update
from sqlalchemy.orm import Session

from data.db.mappers import message_values
from data.db.preview import preview as preview  # re-exported
from data.db.rows import MessageAttachmentRow, MessageRow, SessionRow
from data.db.search_backlog import index_waiting
from domain.errors import InvalidInput, NotFound
from domain.models import Message

_MESSAGES = cast(Table, MessageRow.__table__)
_REFS = cast(Table, MessageAttachmentRow.__table__)
_SESSIONS = cast(Table, SessionRow.__table__)
# a new row's revision starts at random: a message deleted and written again under its id (an import of its own
# export) never matches what the memo kept of the deleted one (below 10**15: the trigger's + 1 never overflows)
FIRST_REV = func.abs(func.random() % 10**15)
_AT = bindparam("at", type_=SessionRow.updated_at.type)  # bound as the column's own type (microseconds)
_TOUCH_MANY = (  # the store's upkeep of a session for many messages at once (count, preview, updated_at)
    update(_SESSIONS).where(_SESSIONS.c.id == bindparam("touch_sid"))
    .values(message_count=_SESSIONS.c.message_count + bindparam("n", type_=Integer),
            updated_at=case((_SESSIONS.c.updated_at < _AT, _AT), else_=_SESSIONS.c.updated_at),
            last_message_preview=func.coalesce(bindparam("preview", type_=String), _SESSIONS.c.last_message_preview))
)
_BULK_INSERT = insert(_MESSAGES).values(rev=FIRST_REV)  # executemany: seq and parent computed by add_many
_NEXT = text(  # the session's last seq and the newest message of its active path
    "SELECT (SELECT coalesce(max(seq), 0) FROM messages WHERE session_id = :sid),"
    " (SELECT id FROM messages WHERE session_id = :sid AND active = 1 ORDER BY seq DESC LIMIT 1)")
_OWNERS = text("SELECT id, session_id FROM messages WHERE id IN :ids").bindparams(bindparam("ids", expanding=True))
_TAKEN = text("SELECT id FROM messages WHERE id IN :ids LIMIT 1").bindparams(bindparam("ids", expanding=True))
_BATCH = 500  # ids per statement (SQLite's limit on bound values)


def add_many(s: Session, messages: Sequence[Message]) -> int:
    """One session's messages stored in `s` as adding them one by one would (MessageRepository.add_many): one
    statement for their parents' sessions, one executemany insert (the FTS triggers index the rows as they go in),
    one for their attachments' references, one update of the session."""
    if not messages:
        return 0
    session_id = messages[0].session_id
    if any(m.session_id != session_id for m in messages):
        raise InvalidInput("add_many stores the messages of one session at a time.")
    if s.get(SessionRow, session_id) is None:
        raise NotFound("session", session_id)
    batch = {m.id for m in messages}
    outside = list({m.parent_id for m in messages if m.parent_id is not None and m.parent_id not in batch})
    owners: dict[str, str] = {}
    for start in range(0, len(outside), _BATCH):
        owners.update((i, sid) for i, sid in s.execute(_OWNERS, {"ids": outside[start:start + _BATCH]}))
    seq, leaf = s.execute(_NEXT, {"sid": session_id}).one()
    stored: set[str] = set()
    rows: list[dict[str, Any]] = []
    refs: list[dict[str, Any]] = []
    touch_at: datetime | None = None
    shown: str | None = None
    for m in messages:
        if m.parent_id is not None and m.parent_id not in stored and owners.get(m.parent_id) != session_id:
            raise NotFound("message", m.parent_id)
        if m.id in stored:
            raise InvalidInput(f"A message with id {m.id!r} already exists.")
        seq += 1
        created = m.created_at or datetime.now(UTC)
        rows.append({"id": m.id, "session_id": session_id, "created_at": created, "seq": seq,
                     "parent_id": m.parent_id if m.parent_id is not None else leaf, **message_values(m)})
        refs += [{"message_id": m.id, "position": i, "sha256": a.sha256} for i, a in enumerate(m.attachments)]
        stored.add(m.id)
        leaf = m.id if m.active else leaf
        touch_at = created if touch_at is None else max(touch_at, created)
        given = preview(m)
        shown = given if given is not None else shown
    ids = [r["id"] for r in rows]
    for at in range(0, len(ids), _BATCH):  # checked first: a failed executemany leaves its earlier rows in
        taken = s.execute(_TAKEN, {"ids": ids[at:at + _BATCH]}).scalar()
        if taken is not None:
            raise InvalidInput(f"A message with id {taken!r} already exists.")
    s.execute(_BULK_INSERT, rows)
    if refs:
        s.execute(insert(_REFS), refs)
    s.execute(_TOUCH_MANY, {"touch_sid": session_id, "at": touch_at, "preview": shown, "n": len(rows)})
    index_waiting(s.connection().connection.dbapi_connection)  # type: ignore[arg-type]  # one batch for the search index
    return len(rows)
