"""Which store a process opens: the full Storage (SQLAlchemy), or for one chat turn in a process of its own the lite
one (data/lite, sqlite3) when the database is already current."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from data.storage import Storage


def open_storage(home: Path | None, *, lite: bool = False) -> Storage:
    """The full Storage, or with `lite` the lite store (data.lite) when the database is current; the lite store opens
    the full one itself for anything it does not do."""
    if lite:
        from data.lite.storage import open_lite

        opened = open_lite(home, lambda: _open_full(home))
        if opened is not None:
            return cast("Storage", opened)  # the same attributes and ports (tests/data run both)
    return _open_full(home)


def _open_full(home: Path | None) -> Storage:
    from data.storage import Storage

    return Storage.open(home)
