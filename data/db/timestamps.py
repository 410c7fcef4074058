"""How every timestamp is stored: integer microseconds since the epoch, UTC (no SQLAlchemy: rows_base's column type,
the seed and the lite store all use these)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(value: datetime | None) -> int | None:
    """A datetime as stored (a naive one is taken as UTC)."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    delta = value - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def at(value: int | None) -> datetime | None:
    """A stored timestamp back as an aware UTC datetime (exact, and a third of fromtimestamp(...).replace(...))."""
    return None if value is None else EPOCH + timedelta(0, 0, int(value))
