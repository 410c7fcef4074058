"""Turns a fetched body into text for the model: decoded by its charset, or, when binary, described by type and size."""

from __future__ import annotations

import codecs

_TEXT_SUFFIXES = ("+json", "+xml", "+yaml", "+text")
_TEXT_TYPES = frozenset({
    "application/json", "application/xml", "application/javascript", "application/ecmascript",
    "application/x-javascript", "application/x-www-form-urlencoded", "application/yaml", "application/x-yaml",
    "application/toml", "application/graphql", "application/sql", "application/x-sh", "application/csv",
    "application/ld+json", "application/x-ndjson", "application/jsonl", "application/xhtml+xml",
})
_BINARY_PREFIXES = ("image/", "audio/", "video/", "font/", "model/")
_BINARY_TYPES = frozenset({
    "application/octet-stream", "application/pdf", "application/zip", "application/gzip", "application/x-gzip",
    "application/x-tar", "application/x-7z-compressed", "application/x-bzip2", "application/x-xz",
    "application/wasm", "application/msword", "application/x-protobuf", "application/vnd.ms-excel",
})
_SNIFF_BYTES = 8192


def media_type(content_type: str) -> str:
    """The media type without parameters, lower case (`text/html; charset=utf-8` -> `text/html`)."""
    return content_type.split(";", 1)[0].strip().lower()


def declared_charset(content_type: str) -> str | None:
    """The charset parameter of a Content-Type, if any and known to Python."""
    for part in content_type.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.strip().lower() == "charset" and value.strip("\"' "):
            name = value.strip("\"' ")
            try:
                codecs.lookup(name)
            except LookupError:
                return None
            return name
    return None


def is_binary(raw: bytes | bytearray, content_type: str) -> bool:
    """True for bodies that are not text: by declared type, else by a NUL byte or undecodable bytes near the start."""
    kind = media_type(content_type)
    if kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(_TEXT_SUFFIXES):
        return False
    if kind.startswith(_BINARY_PREFIXES) or kind in _BINARY_TYPES:
        return True
    sample = bytes(raw[:_SNIFF_BYTES])
    charset = declared_charset(content_type) or "utf-8"
    wide = codecs.lookup(charset).name.startswith(("utf-16", "utf-32"))  # their text is full of NUL bytes
    if b"\x00" in sample and not wide:
        return True
    decoder = codecs.getincrementaldecoder(charset)(errors="strict")
    try:
        decoder.decode(sample, final=len(raw) <= _SNIFF_BYTES)
    except UnicodeDecodeError:
        return True
    return False


def describe_binary(content_type: str, size: int, capped: bool) -> str:
    """A one-line stand-in for a binary body: its type and size."""
    kind = media_type(content_type) or "no declared type"
    amount = f"more than {size:,} bytes (reading stopped there)" if capped else f"{size:,} bytes"
    return f"[binary body ({kind}), {amount}; not shown as text]"


def decode_text(raw: bytes | bytearray, content_type: str) -> str:
    """The body as text, in its declared charset (UTF-8 otherwise); stray bytes become U+FFFD."""
    return raw.decode(declared_charset(content_type) or "utf-8", errors="replace")
