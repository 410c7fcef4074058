"""MessageRepository over SQLite: ordered by a per-session seq, full tool outputs archived compressed."""

from __future__ import annotations

import hashlib
import sqlite3
import zlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

from sqlalchemy import (
    Select,
    select,
    update,
)

from data.db import message_text as text_sql
from data.db.engine import Database
from data.db.mappers import MESSAGE_COLUMNS, message_from_row, message_to_domain, message_values
from data.db.message_memo import MemoRead, MessageMemo, reads_back_equal
from data.db.message_sql import (
    AFTER,
    ALL_SINCE,
    BETWEEN,
    CHILDREN,
    DELETE,
    LENGTHS_SQL,
    LINKS,
    MESSAGES,
    NEWEST_LEAF,
    OFF_AFTER,
    ON,
    ON_BATCH,
    PATH,
    PATH_COUNT,
    PATH_TAIL,
    PATH_UPTO,
    PINNED_READ,
    REPLY_TOKENS,
    REPLY_WEB,
    ROOTS,
    SET_PATH,
    SINCE,
    SINCE_READ,
    TREE,
    TYPES,
    WALK,
)
from data.db.message_writes import add_many
from data.db.message_writes import preview as _preview
from data.db.rows import MessageRow, SessionRow, ToolOutputArchiveRow
from data.db.timestamps import micros
from data.db.tool_archive import compress_within as compress_within  # re-exported
from domain.context.frozen_copy import copied
from domain.errors import InvalidInput, NotFound
from domain.models import Message, MessageId, MessageType, ModelId, SessionId, TreeNode
from domain.settings import ContextSettings
from domain.web import record_from_json


class SqlMessageRepository:
    """Messages of sessions; each add takes the next seq of its session in the same statement as the insert."""

    def __init__(self, db: Database, archive_max_bytes: int | None = None) -> None:
        self._db = db
        self._archive_max = archive_max_bytes or ContextSettings().tool_result_archive_max_bytes
        self._memo = MessageMemo()

    def add(self, message: Message, *, full_output: str | None = None) -> Message:
        created = message.created_at or datetime.now(UTC)
        at = micros(created)
        params = {"id": message.id, "session_id": message.session_id, "created_at": at,
                  "parent_id": message.parent_id, **message_values(message)}
        with self._db.known_write_sql() as con:  # a turn's hot path: plain SQL on the transaction's connection
            if message.parent_id is not None and (
                    con.execute(text_sql.PARENT_SESSION, (message.parent_id,)).fetchone() or (None,)
            )[0] != message.session_id:
                raise NotFound("message", message.parent_id)
            try:  # SQLite undoes only the refused statement: a surrounding unit of work stays usable (no savepoint)
                seq, parent_id, rev = con.execute(
                    text_sql.INSERT if message.parent_id is None else text_sql.INSERT_CHILD, params).fetchone()
            except sqlite3.IntegrityError as exc:  # an unknown session (foreign key) or an id taken (primary key)
                if con.execute(text_sql.SESSION_EXISTS, (message.session_id,)).fetchone() is None:
                    raise NotFound("session", message.session_id) from None
                raise InvalidInput(f"A message with id {message.id!r} already exists.") from exc
            if full_output is not None:
                data, kept = compress_within(full_output, self._archive_max)
                con.execute(text_sql.ARCHIVE,
                            (message.id, data, len(full_output), kept, hashlib.sha256(data).hexdigest()))
            if message.attachments:  # a reference per file: the store deletes a file with its last reference
                con.executemany(text_sql.ATTACHMENT_REF, [(message.id, i, a.sha256)
                                                          for i, a in enumerate(message.attachments)])
            con.execute(text_sql.TOUCH, {"sid": message.session_id, "at": at, "preview": _preview(message)})
            stored = copied(message, seq=seq, created_at=created, parent_id=parent_id)  # replace: ~15 µs
            exact = rev if reads_back_equal(stored) else None
            journal = self._db.journal()
            assert journal is not None
            self._memo.inserted(journal, stored, exact)  # taken in when this commits: the keys need no read then
        self._memo.wrote(stored, exact)
        return stored

    def add_many(self, messages: Sequence[Message]) -> int:
        with self._db.write() as s:
            return add_many(s, messages)

    def get(self, message_id: MessageId) -> Message | None:
        with self._db.read() as s:
            row = s.get(MessageRow, message_id)
            return message_to_domain(row) if row else None

    def snapshot(self, session_id: SessionId, *, include_inactive: bool = False) -> Sequence[Message]:
        return self._select(ALL_SINCE if include_inactive else SINCE, {"sid": session_id, "seq": 0})

    def since(self, session_id: SessionId, seq: int) -> Sequence[Message]:
        return self._remembered(SINCE_READ, {"sid": session_id, "seq": seq}, session_id)

    def pinned(self, session_id: SessionId) -> Sequence[Message]:
        return self._remembered(PINNED_READ, {"sid": session_id}, ("pinned", session_id))

    def path_lengths(self, session_id: SessionId, seq: int) -> Sequence[tuple[int, int, int, int, int]]:
        with self._db.read() as s:  # the driver's own rows, plain tuples of integers: 20,000 of them in half the time
            cursor = s.connection().connection.dbapi_connection.execute(  # type: ignore[union-attr]
                LENGTHS_SQL, {"sid": session_id, "seq": seq})
            return cursor.fetchall()

    def update(self, message: Message) -> Message:
        with self._db.write() as s:
            row = s.execute(
                update(MESSAGES).where(MESSAGES.c.id == message.id).values(**message_values(message))
                .returning(*(MESSAGES.c[name] for name in MESSAGE_COLUMNS))
            ).first()
            if row is None:
                raise NotFound("message", message.id)
            stored = message_from_row(row)
            preview = _preview(stored)
            if preview is not None:  # the newest message's text is the session's preview (a streamed reply grows)
                s.execute(update(SessionRow).where(SessionRow.id == stored.session_id,
                                                  SessionRow.message_count == stored.seq)
                          .values(last_message_preview=preview))
        self._memo.wrote(stored)
        return stored

    def full_output(self, message_id: MessageId) -> str | None:
        with self._db.read() as s:
            row = s.get(ToolOutputArchiveRow, message_id)
            return zlib.decompress(row.data).decode("utf-8") if row else None

    def count(self, session_id: SessionId) -> int:
        """The session's message_count, which every add keeps in the same transaction (O(1), no COUNT(*))."""
        with self._db.read() as s:
            return int(s.scalar(select(SessionRow.message_count).where(SessionRow.id == session_id)) or 0)

    def tree(self, session_id: SessionId) -> Sequence[TreeNode]:
        with self._db.read() as s:
            return [TreeNode(i, p, seq, TYPES[t], bool(a), c or "") for i, p, seq, t, a, c in
                    s.execute(TREE, {"sid": session_id})]

    def set_path(self, session_id: SessionId, leaf_id: MessageId | None) -> Sequence[MessageId]:
        with self._db.write() as s:  # only the part after the fork moves: a switch near the end is a few rows
            if leaf_id is None:
                s.execute(OFF_AFTER, {"sid": session_id, "seq": -1})
                return []
            walked = s.execute(WALK, {"sid": session_id, "leaf": leaf_id}).all()  # the leaf first
            if not walked:
                raise NotFound("message", leaf_id)
            junction = walked[-1] if walked[-1][2] else None
            after = junction[1] if junction is not None else -1
            new = [row[0] for row in reversed(walked) if not row[2]]
            s.execute(OFF_AFTER, {"sid": session_id, "seq": after})
            for start in range(0, len(new), ON_BATCH):
                s.execute(ON, {"ids": new[start:start + ON_BATCH]})
            kept = s.execute(PATH_UPTO, {"sid": session_id, "seq": after}).all() if junction else []
            if junction is not None and not _one_path(kept, junction[0]):
                s.execute(SET_PATH, {"sid": session_id, "leaf": leaf_id})
                return [r[0] for r in s.execute(PATH, {"sid": session_id, "leaf": leaf_id})]
            return [r[0] for r in kept] + new

    def path_tail(self, session_id: SessionId, count: int, before_seq: int | None = None) -> Sequence[Message]:
        if count <= 0:
            return []
        before = before_seq if before_seq is not None else 2**62
        with self._db.read() as s:
            start = s.execute(PATH_TAIL, {"sid": session_id, "skip": count - 1, "before": before}).scalar()
            if start is None:  # fewer than `count` before it: all of them
                start = 0
        if before_seq is None:
            return self._select(SINCE, {"sid": session_id, "seq": start})
        return self._select(BETWEEN, {"sid": session_id, "seq": start, "before": before_seq})

    def path_head(self, session_id: SessionId, count: int, after_seq: int) -> Sequence[Message]:
        if count <= 0:
            return []
        return self._select(AFTER, {"sid": session_id, "after": after_seq, "count": count})

    def path_count(self, session_id: SessionId, before_seq: int | None = None) -> int:
        with self._db.read() as s:
            before = before_seq if before_seq is not None else 2**62
            return int(s.execute(PATH_COUNT, {"sid": session_id, "before": before}).scalar() or 0)

    def reply_tokens(self, session_id: SessionId) -> Sequence[tuple[ModelId | None, int, int]]:
        with self._db.read() as s:
            rows = s.execute(REPLY_TOKENS, {"sid": session_id, "reply": MessageType.AI_RESPONSE.value})
            return [(model, int(i), int(o)) for model, i, o in rows]

    def reply_searches(self, session_id: SessionId) -> Sequence[tuple[ModelId | None, int]]:
        counts: dict[ModelId | None, int] = {}
        with self._db.read() as s:
            for model, web in s.execute(REPLY_WEB, {"sid": session_id, "reply": MessageType.AI_RESPONSE.value}):
                record = record_from_json(web)
                if record is not None:
                    counts[model] = counts.get(model, 0) + record.billed_searches
        return list(counts.items())

    def children(self, session_id: SessionId, parent_ids: Sequence[MessageId | None]
                 ) -> Mapping[MessageId | None, tuple[MessageId, ...]]:
        kids: dict[MessageId | None, list[MessageId]] = {p: [] for p in parent_ids}
        wanted = [p for p in kids if p is not None]
        with self._db.read() as s:
            if wanted:
                for parent, child in s.connection().execute(CHILDREN, {"parents": wanted, "sid": session_id}):
                    kids[parent].append(child)
            if None in kids:
                kids[None] = [r[0] for r in s.execute(ROOTS, {"sid": session_id})]
        return {p: tuple(ids) for p, ids in kids.items()}

    def newest_leaf(self, session_id: SessionId, message_id: MessageId) -> MessageId:
        with self._db.read() as s:
            leaf = s.execute(NEWEST_LEAF, {"sid": session_id, "mid": message_id}).scalar()
        if leaf is None:
            raise NotFound("message", message_id)
        return str(leaf)

    def delete_subtree(self, session_id: SessionId, message_id: MessageId) -> Sequence[MessageId]:
        with self._db.write() as s:
            children: dict[MessageId | None, list[MessageId]] = {}
            for i, p, _seq, _a in s.execute(LINKS, {"sid": session_id}):
                children.setdefault(p, []).append(i)
            if not any(message_id in kids for kids in children.values()):
                raise NotFound("message", message_id)
            gone, todo = [], [message_id]
            while todo:
                node = todo.pop()
                gone.append(node)
                todo.extend(children.get(node, ()))
            s.execute(DELETE, [{"id": i} for i in gone])
            s.execute(update(SessionRow).where(SessionRow.id == session_id)
                      .values(message_count=SessionRow.message_count - len(gone)))
            return gone

    def _remembered(self, queries: MemoRead, params: dict[str, Any], memo_key: Any) -> Sequence[Message]:
        """A turn's reads (the messages since the boundary, the pinned ones): unchanged messages come from the memo."""
        with self._db.read_sql() as con:
            return self._memo.read(con, queries, params, memo_key, remember=not self._db.writing)

    def _select(self, query: Select[Any], params: dict[str, Any]) -> Sequence[Message]:
        with self._db.read() as s:  # plain rows, not ORM objects: a long history maps several times faster
            return [message_from_row(r) for r in s.execute(query, params)]


def _one_path(rows: Sequence[Any], last: MessageId) -> bool:
    """Whether (id, parent_id) rows in seq order are one path from a root to `last`."""
    return (bool(rows) and rows[0][1] is None and rows[-1][0] == last
            and all(child[1] == parent[0] for parent, child in pairwise(rows)))
