"""The rows' declarative base and the UTC timestamp column type every row uses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import (
    Integer,
    TypeDecorator,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class UtcTimestamp(TypeDecorator[datetime]):
    """A UTC datetime stored as integer microseconds since the epoch (exact round trip, sortable)."""

    impl = Integer
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> int | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        delta = value - datetime(1970, 1, 1, tzinfo=UTC)
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds

    def process_result_value(self, value: int | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return _EPOCH + timedelta(0, 0, int(value))  # exact, and a third of fromtimestamp(...).replace(...)


class Base(DeclarativeBase):
    """Declarative base of every row."""
