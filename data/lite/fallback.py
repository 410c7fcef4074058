"""What a lite repository does not implement itself it asks of the full (SQLAlchemy) store's repository, opened on
first use: correct, only slower. Never inside a lite write transaction: the full store's connection would wait for
that very transaction (and read around it), so there it is a bug, reported at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from data.lite.db import LiteDatabase
from domain.errors import StorageError


class Delegating:
    """A lite repository: its own methods over sqlite3, any other through `full()`, the full store's repository."""

    def __init__(self, db: LiteDatabase, full: Callable[[], Any]) -> None:
        self._lite_db = db
        self._full = full

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_lite_db", "_full"):
            raise AttributeError(name)
        if self._lite_db.writing:
            raise StorageError(f"{type(self).__name__}.{name} was called inside a transaction of the lite store, "
                               "which only its own methods may join. This is a bug: please report it.")
        return getattr(self._full(), name)
