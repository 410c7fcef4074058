"""Which attachment files the messages still refer to (a file goes with its last reference)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select

from data.db.engine import Database
from data.db.rows import MessageAttachmentRow


def unreferenced(db: Database, digests: Iterable[str]) -> set[str]:
    """The digests among `digests` that no message refers to."""
    wanted = set(digests)
    if not wanted:
        return set()
    with db.read() as s:
        held = set(s.scalars(select(MessageAttachmentRow.sha256).where(MessageAttachmentRow.sha256.in_(wanted))))
    return wanted - held
