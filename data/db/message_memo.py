"""Messages read before, kept while their revision stands: reading a path again fetches only new or changed rows."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from sqlalchemy import Select
from sqlalchemy.orm import Session

from data.db.mappers import message_from_row
from domain.models import Message, MessageId

_Kept = tuple[int, int, Message]  # seq, rev, the message
ID_BATCH = 500  # rows fetched per statement (far below SQLite's limit on bound variables)


class MessageMemo:
    """Per read (a session's path, its pinned messages), the messages it returned last, by id, with the seq and
    revision they had. A read first selects (id, seq, rev) of the rows it returns, a cheap index walk, then fetches
    whole rows only for ids it does not know or whose seq or revision moved: the trigger of migration 0022 raises
    `rev` with every change to a message but a move of the active path, from any process, and a row written again
    under an old id starts at a random revision.

    Only reads of committed state fill it: a unit of work's own rows might still be rolled back. An entry holds the
    messages of the last read only; reads of more than `max_messages` rows are not kept, nor more than
    `max_reads` reads (least recently read first out)."""

    def __init__(self, max_reads: int = 16, max_messages: int = 2_000) -> None:
        self._max_reads, self._max_messages = max_reads, max_messages
        self._reads: OrderedDict[Hashable, dict[MessageId, _Kept]] = OrderedDict()
        self._lock = threading.Lock()

    def read(
        self, s: Session, keys: Select[Any], rows: Select[Any], params: Mapping[str, Any], read: Hashable,
        *, remember: bool,
    ) -> list[Message]:
        """The messages `keys` selects (as (id, seq, rev) rows, in order); `rows` fetches whole rows as (id, seq,
        rev, *MESSAGE_COLUMNS) for its expanding `ids` parameter. Both run in `s` (one read transaction). `read`
        names what is read (a session's path, its pinned messages): each keeps its own entry."""
        wanted = s.execute(keys, params).all()
        with self._lock:
            known = self._reads.get(read, {})
        missing = [id_ for id_, seq, rev in wanted if (hit := known.get(id_)) is None or hit[:2] != (seq, rev)]
        fresh = dict(self._fetch(s, rows, missing)) if missing else {}
        kept = {id_: fresh.get(id_) or known[id_] for id_, _, _ in wanted}
        if remember and len(kept) <= self._max_messages:
            with self._lock:
                self._reads[read] = kept
                self._reads.move_to_end(read)
                while len(self._reads) > self._max_reads:
                    self._reads.popitem(last=False)
        return [kept[id_][2] for id_, _, _ in wanted]

    @staticmethod
    def _fetch(s: Session, rows: Select[Any], ids: Sequence[MessageId]) -> list[tuple[MessageId, _Kept]]:
        out = []
        for start in range(0, len(ids), ID_BATCH):
            for row in s.execute(rows, {"ids": list(ids[start:start + ID_BATCH])}):
                out.append((row[0], (row[1], row[2], message_from_row(row[3:]))))
        return out
