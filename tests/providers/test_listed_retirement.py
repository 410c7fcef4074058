"""The retirement day read from a provider's model list (data/providers/listed_retirement.py): Anthropic's
`retires_at` as the SDK parses it (an aware datetime) or as text, OpenAI's `shutdown_date` (YYYY-MM-DD); nothing
for an empty or unreadable field."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from data.providers.listed_retirement import listed_retirement
from domain.models import Retirement


@pytest.mark.parametrize(("value", "day"), [
    (datetime(2026, 12, 15, tzinfo=UTC), date(2026, 12, 15)),
    (datetime(2026, 12, 15, 1, 0, tzinfo=timezone(timedelta(hours=5))), date(2026, 12, 14)),  # taken in UTC
    ("2026-12-15T00:00:00Z", date(2026, 12, 15)),
    ("2027-01-14", date(2027, 1, 14)),
    (" 2027-01-14 ", date(2027, 1, 14)),
    (date(2027, 1, 14), date(2027, 1, 14)),
])
def test_a_reported_day_is_read(value: object, day: date) -> None:
    assert listed_retirement(value) == Retirement(day)


@pytest.mark.parametrize("value", [None, "", "soon", "2026-13-01", "14/01/2027", 20270114])
def test_an_empty_or_unreadable_field_says_nothing(value: object) -> None:
    assert listed_retirement(value) is None
