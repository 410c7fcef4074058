"""The retirement day a provider's own model list reports: Anthropic's `retires_at` (RFC 3339), OpenAI's
`shutdown_date` (YYYY-MM-DD)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from domain.models import Retirement


def listed_retirement(value: object) -> Retirement | None:
    """The day in a listed model's field (a datetime, a date or an ISO string, a datetime taken in UTC); None when
    the field is empty or unreadable (nothing is said rather than a wrong day)."""
    if isinstance(value, str):
        text = value.strip()
        try:
            value = datetime.fromisoformat(text.replace("Z", "+00:00")) if "T" in text else date.fromisoformat(text)
        except ValueError:
            return None
    if isinstance(value, datetime):
        return Retirement((value.astimezone(UTC) if value.tzinfo else value).date())
    if isinstance(value, date):
        return Retirement(value)
    return None
