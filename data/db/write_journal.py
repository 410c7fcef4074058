"""A write transaction's changes as this process's caches know them, checked against SQLite's own count of changes."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from domain.models import Message

DATA_VERSION = "PRAGMA data_version"  # moves when another connection (any process) commits; not for its own commits


class WriteJournal:
    """What one write transaction changed that the caches over the store can account for: rows whose effect on
    them is known (`known`, counted as SQLite counts changes, triggers' included) and the messages it inserted.

    After COMMIT the hooks run; a cache may trust the journal only when `all_known()`: every change the connection
    made in the transaction (sqlite3's `total_changes`, which also counts statements run behind the repositories'
    back) was accounted for here."""

    __slots__ = ("_hooks", "con", "inserted", "known", "start")

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con
        self.start = con.total_changes
        self.known = 0
        self.inserted: list[tuple[Message, int | None]] = []  # a message, and its revision when it reads back equal
        self._hooks: list[Callable[[WriteJournal], None]] = []

    def account(self, changes: int) -> None:
        """`changes` rows changed by a write whose effect every cache knows (leaves them right, or they follow it)."""
        self.known += changes

    def on_commit(self, hook: Callable[[WriteJournal], None]) -> None:
        """Runs `hook(self)` once the transaction has committed (never after a rollback); once per hook."""
        if hook not in self._hooks:
            self._hooks.append(hook)

    def all_known(self) -> bool:
        """Whether every change of the transaction was accounted for."""
        return self.con.total_changes - self.start == self.known

    def committed(self) -> None:
        """The transaction committed: the hooks run, in the order they were given."""
        for hook in self._hooks:
            hook(self)
