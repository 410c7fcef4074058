"""The rows' declarative base and the UTC timestamp column type every row uses."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Integer,
    TypeDecorator,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase

from data.db.timestamps import at, micros


class UtcTimestamp(TypeDecorator[datetime]):
    """A UTC datetime stored as integer microseconds since the epoch (exact round trip, sortable)."""

    impl = Integer
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> int | None:
        return micros(value)

    def process_result_value(self, value: int | None, dialect: Dialect) -> datetime | None:
        return at(value)


class Base(DeclarativeBase):
    """Declarative base of every row."""
