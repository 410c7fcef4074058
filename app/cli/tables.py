"""Plain-text output helpers: aligned columns and compact timestamps."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Left-aligned columns separated by two spaces; the last column is not padded."""
    cells = [[str(h) for h in headers], *[["" if c is None else str(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        padded = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] + [row[-1]]
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines)


def when(at: datetime | None) -> str:
    """A timestamp to the minute, in UTC."""
    return at.strftime("%Y-%m-%d %H:%M") if at is not None else ""


def one_line(text: str | None, limit: int = 60) -> str:
    """Text on one line, cut with an ellipsis past `limit` characters."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
