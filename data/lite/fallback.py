"""What a lite repository does not implement itself it asks of the full (SQLAlchemy) store's repository, opened on
first use: correct, only slower. So does a call from another thread than the one that opened the lite store (an
MCP server's thread): sqlite3 connections stay on their thread, the full store serves every thread. Never inside a
lite write transaction on its own thread: the full store's connection would wait for that very transaction (and
read around it), so there it is a bug, reported at once."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from data.lite.db import LiteDatabase
from domain.errors import StorageError


class Delegating:
    """A lite repository: its own methods over sqlite3, any other through `full()`, the full store's repository."""

    def __init__(self, db: LiteDatabase, full: Callable[[], Any]) -> None:
        self._lite_db = db
        self._full = full

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, method in list(vars(cls).items()):
            if callable(method) and not name.startswith("_"):
                setattr(cls, name, _on_its_thread(name, method))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_lite_db", "_full"):
            raise AttributeError(name)
        if self._lite_db.writing and self._lite_db.on_its_thread:
            raise StorageError(f"{type(self).__name__}.{name} was called inside a transaction of the lite store, "
                               "which only its own methods may join. This is a bug: please report it.")
        return getattr(self._full(), name)


def _on_its_thread(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """The lite method on the lite store's thread, the full store's from any other."""

    @functools.wraps(method)
    def call(self: Delegating, *args: Any, **kwargs: Any) -> Any:
        if self._lite_db.on_its_thread:
            return method(self, *args, **kwargs)
        return getattr(self._full(), name)(*args, **kwargs)

    return call
