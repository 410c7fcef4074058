"""The messages a chat turn reads and writes, over sqlite3 (data.db.messages' contract; the branch tree's moves and
bulk writes through the full store, see data.lite.storage)."""

from __future__ import annotations

import hashlib
import sqlite3
import zlib
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from data.db import message_text as sql
from data.db.mappers import MESSAGE_COLUMNS, message_from_row, message_values
from data.db.preview import preview
from data.db.tool_archive import compress_within
from data.lite.db import LiteDatabase, at, micros
from data.lite.fallback import Delegating
from domain.errors import InvalidInput, NotFound
from domain.models import Message, MessageId, SessionId
from domain.settings import ContextSettings

INSERT, INSERT_CHILD, UPDATE, TOUCH = sql.INSERT, sql.INSERT_CHILD, sql.UPDATE, sql.TOUCH  # shared with data.db
_CREATED = MESSAGE_COLUMNS.index("created_at")


class LiteMessageRepository(Delegating):
    """Messages: adds, updates and the path's reads; the tree's moves, bulk writes and sums through the full store."""

    def __init__(self, db: LiteDatabase, full: Any, archive_max_bytes: int | None = None) -> None:
        super().__init__(db, full)
        self._db = db
        self._archive_max = archive_max_bytes or ContextSettings().tool_result_archive_max_bytes

    def add(self, message: Message, *, full_output: str | None = None) -> Message:
        created = message.created_at or datetime.now(UTC)
        params = {"id": message.id, "session_id": message.session_id, "created_at": micros(created),
                  "parent_id": message.parent_id, **message_values(message)}
        with self._db.write():
            if message.parent_id is not None and self._db.value(
                    "SELECT session_id FROM messages WHERE id = ?", (message.parent_id,)) != message.session_id:
                raise NotFound("message", message.parent_id)
            try:  # SQLite undoes only the refused statement: a surrounding unit of work stays usable
                seq, parent_id, _ = self._db.run(INSERT if message.parent_id is None else INSERT_CHILD,
                                                   params).fetchone()
            except sqlite3.IntegrityError as exc:  # an unknown session (foreign key) or an id taken (primary key)
                if self._db.value("SELECT 1 FROM sessions WHERE id = ?", (message.session_id,)) is None:
                    raise NotFound("session", message.session_id) from None
                raise InvalidInput(f"A message with id {message.id!r} already exists.") from exc
            if full_output is not None:
                data, kept = compress_within(full_output, self._archive_max)
                self._db.run(sql.ARCHIVE, (message.id, data, len(full_output), kept, hashlib.sha256(data).hexdigest()))
            if message.attachments:  # a reference per file: the store deletes a file with its last reference
                self._db.many(sql.ATTACHMENT_REF,
                              [(message.id, i, a.sha256) for i, a in enumerate(message.attachments)])
            self._db.run(TOUCH, {"sid": message.session_id, "at": micros(created), "preview": preview(message)})
        return replace(message, seq=seq, created_at=created, parent_id=parent_id)

    def get(self, message_id: MessageId) -> Message | None:
        found = self._messages(sql.BY_ID, {"id": message_id})
        return found[0] if found else None

    def snapshot(self, session_id: SessionId, *, include_inactive: bool = False) -> Sequence[Message]:
        return self._messages(sql.ALL_SINCE if include_inactive else sql.SINCE, {"sid": session_id, "seq": 0})

    def since(self, session_id: SessionId, seq: int) -> Sequence[Message]:
        return self._messages(sql.SINCE, {"sid": session_id, "seq": seq})

    def pinned(self, session_id: SessionId) -> Sequence[Message]:
        return self._messages(sql.PINNED, {"sid": session_id})

    def path_lengths(self, session_id: SessionId, seq: int) -> Sequence[tuple[int, int, int, int, int]]:
        return self._db.rows(sql.LENGTHS, {"sid": session_id, "seq": seq})

    def update(self, message: Message) -> Message:
        with self._db.write():
            row = self._db.run(UPDATE, {"id": message.id, **message_values(message)}).fetchone()
            if row is None:
                raise NotFound("message", message.id)
            stored = _message(row)
            shown = preview(stored)
            if shown is not None:  # the newest message's text is the session's preview (a streamed reply grows)
                self._db.run("UPDATE sessions SET last_message_preview = ? WHERE id = ? AND message_count = ?",
                             (shown, stored.session_id, stored.seq))
            return stored

    def full_output(self, message_id: MessageId) -> str | None:
        data = self._db.value("SELECT data FROM tool_output_archive WHERE message_id = ?", (message_id,))
        return zlib.decompress(data).decode("utf-8") if data is not None else None

    def count(self, session_id: SessionId) -> int:
        """The session's message_count, which every add keeps in the same transaction."""
        return int(self._db.value("SELECT message_count FROM sessions WHERE id = ?", (session_id,)) or 0)

    def path_tail(self, session_id: SessionId, count: int, before_seq: int | None = None) -> Sequence[Message]:
        if count <= 0:
            return []
        before = before_seq if before_seq is not None else 2**62
        start = self._db.value(sql.PATH_TAIL, {"sid": session_id, "skip": count - 1, "before": before}) or 0
        if before_seq is None:
            return self._messages(sql.SINCE, {"sid": session_id, "seq": start})
        return self._messages(sql.BETWEEN, {"sid": session_id, "seq": start, "before": before_seq})

    def path_head(self, session_id: SessionId, count: int, after_seq: int) -> Sequence[Message]:
        if count <= 0:
            return []
        return self._messages(sql.AFTER, {"sid": session_id, "after": after_seq, "count": count})

    def path_count(self, session_id: SessionId, before_seq: int | None = None) -> int:
        before = before_seq if before_seq is not None else 2**62
        return int(self._db.value(sql.PATH_COUNT, {"sid": session_id, "before": before}) or 0)

    def _messages(self, statement: str, params: dict[str, Any]) -> list[Message]:
        return [_message(row) for row in self._db.rows(statement, params)]


def _message(row: Sequence[Any]) -> Message:
    values = list(row)
    values[_CREATED] = at(values[_CREATED])
    return message_from_row(values)
