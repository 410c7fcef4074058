"""Validation of a provider base URL typed by a person."""

from __future__ import annotations

from urllib.parse import urlsplit

from domain.errors import InvalidInput


def clean_base_url(url: str) -> str:
    """The URL without surrounding blanks or a trailing slash; InvalidInput unless it is an http(s) URL with a host."""
    text = url.strip().rstrip("/")
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidInput(f"{url!r} is not a base URL; give one like http://127.0.0.1:11434/v1.")
    return text
