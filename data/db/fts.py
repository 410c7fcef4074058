"""Turns any user text into a safe FTS5 query: every word quoted, prefix-matched, all required."""

from __future__ import annotations

import re

_WORD = re.compile(r"\w", re.UNICODE)


def fts_query(text: str) -> str | None:
    """A MATCH expression for the words of `text`, or None when it has no searchable word."""
    terms = [term for term in text.split() if _WORD.search(term)]
    if not terms:
        return None
    return " ".join('"' + term.replace('"', '""') + '"*' for term in terms[:32])
