"""Messages read before, kept while their revision stands: reading a path again fetches only new or changed rows."""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC
from typing import Any, NamedTuple

from data.db.mappers import MESSAGE_COLUMNS, message_from_row
from data.db.message_text import BY_IDS_OF
from data.db.timestamps import at
from data.db.write_journal import DATA_VERSION, WriteJournal
from domain.models import Message, MessageId

_Key = tuple[MessageId, int, int]  # a row's id, seq and revision: the message is kept under the three
_Written = tuple[Message, int | None]  # a message as this process wrote it, and its revision when known exactly
# the state a read saw: its connection, that connection's data_version and count of its own changes (sqlite3's
# total_changes); while all three stand, no connection has changed anything since (see MessageMemo)
_Stamp = tuple[sqlite3.Connection, int, int]
ID_BATCH = 500  # rows fetched per statement (far below SQLite's limit on bound variables)
KEPT_WRITES = 256  # messages as this process wrote them, awaiting their first read (all dropped past this)
_CREATED = MESSAGE_COLUMNS.index("created_at")


@dataclass(frozen=True)
class MemoRead:
    """One read the memo serves, as plain SQL run on the sqlite3 connection (it runs every turn): `keys` selects its
    (id, seq, rev) rows in order, `whole` the same rows as (id, seq, rev, *MESSAGE_COLUMNS). `admits(message,
    params)`: whether a message just inserted (after every row of its session) is one of the read's rows."""

    keys: str
    whole: str
    admits: Callable[[Message, Mapping[str, Any]], bool]


class _Entry(NamedTuple):
    """A read as last made: its messages by key, its keys and messages in order, its parameters, and the stamp of
    the state it saw (None: to be checked with its keys before use)."""

    known: dict[_Key, Message]
    keys: list[_Key]
    out: tuple[Message, ...]
    params: dict[str, Any]
    stamp: _Stamp | None
    queries: MemoRead


class MessageMemo:
    """Per read (a session's path, its pinned messages), the messages it returned last, by id, with the seq and
    revision they had. A read it has kept before selects (id, seq, rev) of the rows it returns, a cheap index walk,
    then fetches whole rows only for ids it does not know or whose seq or revision moved: the trigger of migration
    0022 raises `rev` with every change to a message but a move of the active path, from any process, and a row
    written again under an old id starts at a random revision. A read it has not kept is one plain select.

    A read is also stamped with the state it saw: its connection, that connection's `PRAGMA data_version` (which
    moves when any other connection, of any process, commits) and its own count of changes (`total_changes`, which
    counts every row it changed, committed or rolled back). Read again on the same connection with all three
    unchanged, it returns what it returned, without reading its keys. A transaction of this process whose every
    change is accounted for in its WriteJournal (messages inserted, and writes that leave these reads as they are)
    carries the stamps forward when it commits, its new messages added.

    Only reads of committed state fill it: a unit of work's own rows might still be rolled back. An entry holds the
    messages of the last read only; at most `max_messages` messages are kept in all (least recently read first
    out)."""

    def __init__(self, max_messages: int = 20_000) -> None:
        self._max_messages = max_messages
        self._reads: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self._written: dict[MessageId, _Written] = {}

    def wrote(self, message: Message, rev: int | None = None) -> None:
        """A message as this process stored it (what add or update returned, which the turn goes on with): when a
        read next fetches its row and finds it equal, the read hands out this same object, so what was worked out
        for it (its estimate, its place in a request) is known by identity.

        With `rev` (an insert's own, from RETURNING; given only where `reads_back_equal` holds), a read that lists
        the row at the same seq and revision takes this object without fetching the row: no other write came
        between (every change to a message moves its revision)."""
        written = self._written
        if len(written) >= KEPT_WRITES:
            written.clear()
        written[message.id] = (message, rev)

    def read(
        self, con: sqlite3.Connection, queries: MemoRead, params: Mapping[str, Any], read: Hashable, *,
        remember: bool,
    ) -> list[Message]:
        """The messages of `queries` for `params`, run on `con` (one read transaction). `read` names what is read:
        each name keeps its own entry."""
        stamp: _Stamp = (con, con.execute(DATA_VERSION).fetchone()[0], con.total_changes)  # begins the snapshot
        with self._lock:
            entry = self._reads.get(read)
        if entry is not None and entry.stamp == stamp and entry.params == params:
            return list(entry.out)  # nothing changed since: not even the keys are read
        if entry is None:
            rows = con.execute(queries.whole, params).fetchall()  # at once, not row by row (20,000: 2x faster)
            kept = {row[:3]: self._as_written(_message(row)) for row in rows}
            wanted: list[_Key] = list(kept)
            out = list(kept.values())
        else:  # the (id, seq, rev) rows, each looked up whole: an id whose seq or revision moved is fetched again
            known, keys, messages = entry.known, entry.keys, entry.out
            wanted = con.execute(queries.keys, params).fetchall()
            if len(keys) <= len(wanted) and wanted[:len(keys)] == keys:  # the last read's rows, maybe more after
                tail = wanted[len(keys):]
                found = self._looked_up(con, tail) if tail else {}
                kept = {**known, **found} if found else known
                out = [*messages, *map(found.__getitem__, tail)]
            else:
                missing = set(wanted).difference(known)  # set and map at C speed: this runs every turn
                if missing:
                    known = {**known, **self._looked_up(con, [key for key in wanted if key in missing])}
                kept = dict(zip(wanted, map(known.__getitem__, wanted), strict=True))
                out = list(map(kept.__getitem__, wanted))
        if remember:
            self._keep(read, _Entry(kept, wanted, tuple(out), dict(params), stamp, queries))
        return out

    def inserted(self, journal: WriteJournal, message: Message, rev: int | None) -> None:
        """A message this process inserted in `journal`'s transaction (with its revision when it reads back equal):
        once that commits with every change accounted for, the reads stamped at its start take it in (when it is
        one of their rows) and stay stamped, without reading their keys again."""
        journal.inserted.append((message, rev))
        journal.on_commit(self._committed)

    def _committed(self, journal: WriteJournal) -> None:
        if not journal.all_known():  # something else changed too: the stamps it would carry forward no longer hold
            return
        con, start, end = journal.con, journal.start, journal.con.total_changes
        with self._lock:
            for read, entry in list(self._reads.items()):
                stamp = entry.stamp
                if stamp is None or stamp[0] is not con or stamp[2] != start:
                    continue
                self._reads[read] = _taken_in(entry, journal.inserted, (con, stamp[1], end))

    def _keep(self, read: Hashable, entry: _Entry) -> None:
        with self._lock:
            self._reads[read] = entry
            self._reads.move_to_end(read)
            total = sum(len(kept.known) for kept in self._reads.values())
            while total > self._max_messages and len(self._reads) > 1:
                total -= len(self._reads.popitem(last=False)[1].known)
            if total > self._max_messages:  # one read larger than the whole memo: not kept
                self._reads.clear()

    def _looked_up(self, con: sqlite3.Connection, keys: Sequence[_Key]) -> dict[_Key, Message]:
        """The messages of these keys: those this process inserted at that very revision as it wrote them, the
        others fetched."""
        found: dict[_Key, Message] = {}
        rest: list[MessageId] = []
        written = self._written
        for key in keys:
            entry = written.get(key[0]) if written else None
            if entry is not None and entry[1] == key[2] and entry[0].seq == key[1]:
                del written[key[0]]
                found[key] = entry[0]
            else:
                rest.append(key[0])
        if rest:
            found.update(self._fetch(con, rest))
        return found

    def _as_written(self, read: Message) -> Message:
        """The object this process wrote for the row read, when equal to it (else the one read)."""
        entry = self._written.pop(read.id, None) if self._written else None
        return entry[0] if entry is not None and entry[0] == read else read

    def _fetch(self, con: sqlite3.Connection, ids: Sequence[MessageId]) -> list[tuple[_Key, Message]]:
        out = []
        for start in range(0, len(ids), ID_BATCH):
            batch = ids[start:start + ID_BATCH]
            for row in con.execute(BY_IDS_OF.format(", ".join("?" * len(batch))), batch).fetchall():
                out.append((row[:3], self._as_written(_message(row))))
        return out


def _taken_in(entry: _Entry, inserted: Sequence[_Written], stamp: _Stamp) -> _Entry:
    """`entry` with the inserted messages among its rows added at its end (each comes after every row of its
    session), stamped `stamp`; unstamped when one of them would read back unequal (its row must be fetched).

    The keys and messages in order are new sequences (a read may hold the old ones); the messages by key are added
    to the same dict: a key is exact (id, seq, revision), so one more never misleads a read of the entry replaced.
    A long uncompacted path (20,000 messages) no longer copies that dict at every insert (about 0.1 ms each)."""
    added: list[tuple[_Key, Message]] = []
    for message, rev in inserted:
        if not message.active or not entry.queries.admits(message, entry.params):
            continue
        if rev is None:
            return entry._replace(stamp=None)
        added.append(((message.id, message.seq, rev), message))
    if not added:
        return entry._replace(stamp=stamp)
    entry.known.update(added)
    return entry._replace(keys=entry.keys + [key for key, _ in added],
                          out=entry.out + tuple(message for _, message in added), stamp=stamp)


def _message(row: Sequence[Any]) -> Message:
    """A message from a plain (id, seq, rev, *MESSAGE_COLUMNS) row of the driver (created_at as stored)."""
    values = list(row[3:])
    values[_CREATED] = at(values[_CREATED])
    return message_from_row(values)


def reads_back_equal(message: Message) -> bool:
    """Whether a read of this message's row, as stored, builds an equal message with the same timestamp object kind:
    every field a plain value (no reasoning, attachments or web record, whose JSON a read parses into new objects)
    and the time in UTC (a read gives UTC)."""
    created = message.created_at
    return (not message.reasoning and not message.attachments and message.web is None
            and created is not None and created.tzinfo is UTC)
