"""The search index's backlog (migration 0038): messages stored since the last batch, indexed together in one
statement before any search, once a batch of them waits after a turn, and at the end of a bulk import."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager

log = logging.getLogger(__name__)

BATCH = 64  # after a turn: indexed once this many messages wait (one index segment for them all)
CHECK_EVERY = 8  # turns between two looks at the backlog (a turn stores two messages or more: 16 or more between)
MOST_PER_TURN = 1_024  # a turn indexes at most this many (a backlog left by another program waits for a search)

WAITING = "SELECT count(*) FROM messages_fts_pending"
_LAST_OF = "SELECT id FROM messages_fts_pending ORDER BY id LIMIT 1 OFFSET ?"
_INDEX = ("INSERT INTO messages_fts(rowid, content, tool_output, tool_input)"
          " SELECT m.rowid, m.content, m.tool_output, m.tool_input FROM messages_fts_pending p"
          " JOIN messages m ON m.rowid = p.id WHERE p.id <= ? ORDER BY p.id")
_DONE = "DELETE FROM messages_fts_pending WHERE id <= ?"
_NEWEST = "SELECT max(id) FROM messages_fts_pending"


def index_waiting(con: sqlite3.Connection, most: int | None = None) -> int:
    """Indexes the waiting messages (the oldest `most` of them, or all) on `con`, inside its open write transaction;
    returns how many rows left the backlog."""
    last = None
    if most is not None:  # the id of the `most`-th oldest, when there are that many
        row = con.execute(_LAST_OF, (most - 1,)).fetchone()
        last = row[0] if row is not None else None
    if last is None:
        last = con.execute(_NEWEST).fetchone()[0]
        if last is None:
            return 0
    con.execute(_INDEX, (last,))
    return con.execute(_DONE, (last,)).rowcount


class SearchBacklog:
    """The backlog over a store's connections: `read()` and `write()` give a sqlite3 connection inside a read and a
    write (BEGIN IMMEDIATE) transaction, as `Database.read_sql`/`write_sql` do."""

    def __init__(
        self,
        read: Callable[[], AbstractContextManager[sqlite3.Connection]],
        write: Callable[[], AbstractContextManager[sqlite3.Connection]],
        *,
        batch: int = BATCH,
        most: int = MOST_PER_TURN,
        check_every: int = CHECK_EVERY,
    ) -> None:
        self._read, self._write, self.batch, self.most = read, write, batch, most
        self._check_every, self._turns = check_every, 0

    def waiting(self) -> int:
        """How many stored messages wait to be indexed."""
        with self._read() as con:
            return int(con.execute(WAITING).fetchone()[0])

    def catch_up(self) -> int:
        """After a turn: indexes the waiting messages once at least a batch of them waits (the oldest `most` of
        them at most), looking after the process's first turn and every `check_every` turns after it (a look is a
        read transaction of its own; a command's one turn looks once); returns how many were indexed."""
        self._turns += 1
        if (self._turns - 1) % self._check_every:
            return 0
        try:
            if self.waiting() < self.batch:
                return 0
            with self._write() as con:
                return index_waiting(con, self.most)
        except sqlite3.Error:  # busy or failing: the messages stay stored and waiting, the next turn or search tries
            log.warning("the search index's batch was not taken this time", exc_info=True)
            return 0

    def index_all(self) -> int:
        """Before a search: indexes every waiting message, so the search finds all that is stored."""
        try:
            if self.waiting() == 0:
                return 0
            with self._write() as con:
                return index_waiting(con)
        except sqlite3.OperationalError:  # another program holds the database: search what is indexed
            log.warning("the search index's backlog could not be taken before a search", exc_info=True)
            return 0
