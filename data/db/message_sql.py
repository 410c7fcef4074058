"""The message store's statements, built once at import: inserts that take the next seq in the same statement, the
active path's reads (recursive walks, pages, pins) and the branch tree's reads and writes."""

from __future__ import annotations

from typing import cast

from sqlalchemy import (
    ColumnElement,
    Integer,
    Table,
    bindparam,
    literal_column,
    select,
    text,
)

from data.db import message_text
from data.db.mappers import MESSAGE_COLUMNS
from data.db.message_memo import MemoRead
from data.db.rows import MessageAttachmentRow, MessageRow
from domain.models import MessageType

TYPES = {t.value: t for t in MessageType}
MESSAGES = cast(Table, MessageRow.__table__)
# inlined, not bound: SQLite uses a partial index only when the query spells out the index's WHERE
ONE: ColumnElement[int] = literal_column("1", Integer)
REFS = cast(Table, MessageAttachmentRow.__table__)
# a message's insert and its session's upkeep: plain SQL in data.db.message_text (run on the sqlite3 connection)
# the active path has a partial index (ix_messages_path): these spell `active = 1` literally so SQLite uses it
PATH_TAIL = text(message_text.PATH_TAIL)
PATH_COUNT = text(message_text.PATH_COUNT)
# a path is moved where it forks from the active one: up from the new leaf to the first message already on the
# active path (the junction, included), the active messages after the junction off, the ones walked on. seq grows
# along every path (a message is stored after its parent), so "after the junction" is `seq > junction's seq`.
WALK = text("WITH RECURSIVE up(id, parent_id, seq, active) AS ("
             " SELECT id, parent_id, seq, active FROM messages WHERE id = :leaf AND session_id = :sid"
             " UNION ALL SELECT m.id, m.parent_id, m.seq, m.active FROM messages m JOIN up ON m.id = up.parent_id"
             " WHERE up.active = 0) SELECT id, seq, active FROM up")
PATH_UPTO = text("SELECT id, parent_id FROM messages WHERE session_id = :sid AND active = 1 AND seq <= :seq"
                  " ORDER BY seq")
# the whole path walked and flagged anew: when the active messages were not one path (never made by the app; a
# store edited by hand, say), so the path is right whatever was there
PATH_UP = ("WITH RECURSIVE up(id, parent_id, seq) AS ("
            " SELECT id, parent_id, seq FROM messages WHERE id = :leaf AND session_id = :sid"
            " UNION ALL SELECT m.id, m.parent_id, m.seq FROM messages m JOIN up ON m.id = up.parent_id)")
PATH = text(PATH_UP + " SELECT id FROM up ORDER BY seq")
SET_PATH = text(PATH_UP + " UPDATE messages SET active = (id IN (SELECT id FROM up))"
                 " WHERE session_id = :sid AND active != (id IN (SELECT id FROM up))")
OFF_AFTER = text("UPDATE messages SET active = 0 WHERE session_id = :sid AND active = 1 AND seq > :seq")
ON = text("UPDATE messages SET active = 1 WHERE id IN :ids").bindparams(bindparam("ids", expanding=True))
ON_BATCH = 500  # ids per statement (SQLite's limit on bound values)
NEWEST_LEAF = text(
    "WITH RECURSIVE down(id, seq) AS (SELECT id, seq FROM messages WHERE id = :mid AND session_id = :sid"
    " UNION ALL SELECT m.id, m.seq FROM messages m JOIN down ON m.parent_id = down.id)"
    " SELECT id FROM down WHERE NOT EXISTS (SELECT 1 FROM messages k WHERE k.parent_id = down.id)"
    " ORDER BY seq DESC LIMIT 1")
CHILDREN = text("SELECT parent_id, id FROM messages WHERE parent_id IN :parents AND +session_id = :sid"
                 " ORDER BY seq").bindparams(  # `+`: by the parent index, not the session's whole range
    bindparam("parents", expanding=True))
ROOTS = text("SELECT id FROM messages WHERE parent_id IS NULL AND session_id = :sid ORDER BY seq")
TREE = text("SELECT id, parent_id, seq, type, active, substr(content, 1, 100) FROM messages"
             " WHERE session_id = :sid ORDER BY seq")
LINKS = text("SELECT id, parent_id, seq, active FROM messages WHERE session_id = :sid ORDER BY seq")
DELETE = text("DELETE FROM messages WHERE id = :id")
LENGTHS_SQL = message_text.LENGTHS  # for the driver's own cursor (path_lengths)
REPLY_TOKENS = text(  # summed in SQL: a 10,000-message session is a few milliseconds, not mapping every message
    "SELECT model_id, sum(coalesce(input_tokens, 0)), sum(coalesce(output_tokens, 0)) FROM messages"
    " WHERE session_id = :sid AND type = :reply AND (coalesce(input_tokens, 0) != 0 OR coalesce(output_tokens, 0) != 0)"
    " GROUP BY model_id ORDER BY min(seq)")
REPLY_WEB = text("SELECT model_id, web FROM messages WHERE session_id = :sid AND type = :reply AND web IS NOT NULL"
                  " ORDER BY seq")
ALL = select(*(MESSAGES.c[name] for name in MESSAGE_COLUMNS)).where(MESSAGES.c.session_id == bindparam("sid"))
ALL_SINCE = ALL.where(MESSAGES.c.seq >= bindparam("seq")).order_by(MESSAGES.c.seq)
SINCE = ALL.where(MESSAGES.c.active == ONE, MESSAGES.c.seq >= bindparam("seq")).order_by(MESSAGES.c.seq)
BETWEEN = SINCE.where(MESSAGES.c.seq < bindparam("before"))  # a page above a window: not the whole rest of the path
AFTER = ALL.where(MESSAGES.c.active == ONE, MESSAGES.c.seq > bindparam("after")).order_by(
    MESSAGES.c.seq).limit(bindparam("count"))
# `pinned = 1` spelt out (neither IS TRUE nor a bound 1) so SQLite can use the partial index ix_messages_pinned, and
# `+active` so it cannot pick the active path's index instead (that read the whole path: 2.5 ms at 10,000 messages)
PINNED = ALL.where(MESSAGES.c.pinned == ONE, text("+messages.active = 1")).order_by(MESSAGES.c.seq)
# the same reads for the memo: as (id, seq, rev) keys, then whole rows for what it does not know (plain SQL)
# (and whether an active message just inserted, after every row of its session, is one of their rows)
SINCE_READ = MemoRead(message_text.SINCE_KEYS, message_text.SINCE_WHOLE,
                      lambda m, p: m.session_id == p["sid"] and m.seq >= p["seq"])
PINNED_READ = MemoRead(message_text.PINNED_KEYS, message_text.PINNED_WHOLE,
                       lambda m, p: m.session_id == p["sid"] and m.pinned)
