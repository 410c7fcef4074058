"""The message store's statements as plain SQL text with named parameters, run as they are by both stores
(data.db.message_sql wraps them in SQLAlchemy's text(); data.lite.messages hands them to sqlite3)."""

from __future__ import annotations

from data.db.mappers import MESSAGE_COLUMNS

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
