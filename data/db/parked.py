"""Pooled connections kept checked out between plain-SQL transactions, so the next one skips the pool's checkout."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.pool import PoolProxiedConnection

PARKED_CONNECTIONS = 3  # connections kept out of the pool between plain-SQL transactions (of its 5, +10 overflow)


class Parked:
    """Pooled connections kept checked out between plain-SQL transactions, the one used last taken first. Two gains:
    the pool's checkout and checkin cost about 10 µs a transaction (three a turn), a list's pop and append well under
    one; and the next transaction runs on the connection that wrote last, whose page cache is still good, where the
    pool's rotation (first in, first out) handed it another, whose cache SQLite drops as its transaction begins
    because the database changed since it last read. At most `limit` are kept (the rest go back to the pool, which
    holds 5 and 10 more); `release()` gives them all back."""

    def __init__(self, engine: Engine, limit: int = PARKED_CONNECTIONS) -> None:
        self._engine, self._limit = engine, limit
        self._free: list[PoolProxiedConnection] = []

    def take(self) -> PoolProxiedConnection:
        """A parked connection (the one used last), else one from the engine's pool."""
        try:
            return self._free.pop()  # atomic: no lock, whichever thread asks
        except IndexError:
            return self._engine.raw_connection()

    def give_back(self, fairy: PoolProxiedConnection) -> None:
        """Keeps the connection (no transaction open on it) for the next plain-SQL transaction, or returns it."""
        if len(self._free) < self._limit:
            self._free.append(fairy)
        else:
            fairy.close()

    def release(self) -> None:
        """Returns every parked connection to the engine's pool (before it is disposed, or to trace new ones)."""
        while True:
            try:
                fairy = self._free.pop()
            except IndexError:
                return
            fairy.close()
