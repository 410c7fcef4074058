"""The message store's statements as plain SQL text with named parameters, run as they are by both stores
(data.db.message_sql wraps them in SQLAlchemy's text(); data.lite.messages hands them to sqlite3)."""

from __future__ import annotations

from data.db.mappers import MESSAGE_COLUMNS, message_values
from domain.models import Message, MessageType

# the active path has a partial index (ix_messages_path): these spell `active = 1` literally so SQLite uses it
PATH_TAIL = ("SELECT seq FROM messages WHERE session_id = :sid AND active = 1 AND seq < :before"
             " ORDER BY seq DESC LIMIT 1 OFFSET :skip")
PATH_COUNT = "SELECT count(*) FROM messages WHERE session_id = :sid AND active = 1 AND seq < :before"
LENGTHS = (  # sizes only: the status of a session far past its window reads its older messages no further
    "SELECT seq, length(content), coalesce(length(tool_input), 0), coalesce(length(tool_name), 0),"
    " coalesce(length(tool_output), 0) FROM messages WHERE session_id = :sid AND active = 1 AND seq >= :seq"
    " ORDER BY seq")

_SELECT = f"SELECT {', '.join(MESSAGE_COLUMNS)} FROM messages"
BY_ID = f"{_SELECT} WHERE id = :id"
ALL_SINCE = f"{_SELECT} WHERE session_id = :sid AND seq >= :seq ORDER BY seq"
SINCE = f"{_SELECT} WHERE session_id = :sid AND active = 1 AND seq >= :seq ORDER BY seq"
BETWEEN = f"{_SELECT} WHERE session_id = :sid AND active = 1 AND seq >= :seq AND seq < :before ORDER BY seq"
AFTER = f"{_SELECT} WHERE session_id = :sid AND active = 1 AND seq > :after ORDER BY seq LIMIT :count"
# `pinned = 1` spelt out so SQLite can use the partial index ix_messages_pinned, `+active` so it cannot pick the
# active path's index instead
PINNED = f"{_SELECT} WHERE session_id = :sid AND pinned = 1 AND +active = 1 ORDER BY seq"
# the keys the message memo reads every turn (data.db.message_memo): which rows, at which seq and revision
SINCE_KEYS = "SELECT id, seq, rev FROM messages WHERE session_id = :sid AND active = 1 AND seq >= :seq ORDER BY seq"
PINNED_KEYS = "SELECT id, seq, rev FROM messages WHERE session_id = :sid AND pinned = 1 AND +active = 1 ORDER BY seq"
# ... and the same rows whole, as (id, seq, rev, *MESSAGE_COLUMNS); BY_IDS_OF takes the ids' placeholders ("?, ?")
_WHOLE = f"SELECT id, seq, rev, {', '.join(MESSAGE_COLUMNS)} FROM messages"
SINCE_WHOLE = f"{_WHOLE} WHERE session_id = :sid AND active = 1 AND seq >= :seq ORDER BY seq"
PINNED_WHOLE = f"{_WHOLE} WHERE session_id = :sid AND pinned = 1 AND +active = 1 ORDER BY seq"
BY_IDS_OF = _WHOLE + " WHERE id IN ({})"

# a message's insert (the next seq of its session taken in the same statement) and the session's upkeep with it
_VALUES = tuple(message_values(Message(id="", session_id="", type=MessageType.USER, content="")))  # column names
_NEXT_SEQ = "(SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE session_id = :session_id)"
_LEAF = "(SELECT id FROM messages WHERE session_id = :session_id AND active = 1 ORDER BY seq DESC LIMIT 1)"
_INSERT = ("INSERT INTO messages (id, session_id, created_at, seq, parent_id, rev, {values}) VALUES (:id, :session_id,"
           " :created_at, {seq}, {parent}, abs(random() % 1000000000000000), {params}) RETURNING seq, parent_id, rev")
INSERT = _INSERT.format(values=", ".join(_VALUES), seq=_NEXT_SEQ, parent=_LEAF,
                        params=", ".join(":" + v for v in _VALUES))
INSERT_CHILD = _INSERT.format(values=", ".join(_VALUES), seq=_NEXT_SEQ, parent=":parent_id",
                              params=", ".join(":" + v for v in _VALUES))
UPDATE = (f"UPDATE messages SET {', '.join(f'{v} = :{v}' for v in _VALUES)} WHERE id = :id"
          f" RETURNING {', '.join(MESSAGE_COLUMNS)}")
TOUCH = ("UPDATE sessions SET message_count = message_count + 1, updated_at = CASE WHEN updated_at < :at THEN :at"
         " ELSE updated_at END, last_message_preview = coalesce(:preview, last_message_preview) WHERE id = :sid")
PARENT_SESSION = "SELECT session_id FROM messages WHERE id = ?"
SESSION_EXISTS = "SELECT 1 FROM sessions WHERE id = ?"
ATTACHMENT_REF = "INSERT INTO message_attachments (message_id, position, sha256) VALUES (?, ?, ?)"
ARCHIVE = ("INSERT INTO tool_output_archive (message_id, data, original_chars, archived_chars, sha256)"
           " VALUES (?, ?, ?, ?, ?)")  # a tool's full output, compressed (data.db.tool_archive)
