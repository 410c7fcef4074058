"""An export file as the import reads it: the file itself or conversations.json inside an export's .zip, only a
regular file, at most MAX_EXPORT_BYTES uncompressed (a zip's own claim checked first, then the bytes counted as
they are read), a small one parsed whole (syntax errors at a line and column), a large one streamed conversation
by conversation (ijson) so memory stays bounded whatever its size."""

from __future__ import annotations

import codecs
import stat
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from domain.attachment import human_size
from domain.errors import InvalidInput
from domain.importers.model import MAX_NESTING, ImportedConversation, MalformedExport, depth_checked, too_deep

MAX_EXPORT_BYTES = 1_000_000_000  # the largest export (uncompressed) an import reads: 1 GB
STREAM_FROM = 32_000_000  # exports larger than this (uncompressed) are streamed rather than parsed whole
_CHUNK = 1 << 16
_WHITESPACE = b" \t\r\n"

OneReader = Callable[[Any, str], ImportedConversation | None]  # (decoded JSON, where) -> conversation (None: skip)


class ExportTooLarge(InvalidInput):
    """An export larger than an import reads; nothing was imported."""


class CappedStream:
    """A binary stream that refuses to read past MAX_EXPORT_BYTES (a zip member whose header understates it) and
    can look at its first bytes (byte-order mark dropped) before handing itself to the parser."""

    def __init__(self, raw: IO[bytes], label: str, limit: int) -> None:
        self._raw, self.label, self.limit = raw, label, limit
        self.count = 0
        self._pending = b""

    def read(self, size: int = -1) -> bytes:
        """Up to `size` bytes (all of them when negative); ExportTooLarge past the limit."""
        if size == 0:
            return b""
        if self._pending:
            data, self._pending = (self._pending, b"") if size < 0 or size >= len(self._pending) else (
                self._pending[:size], self._pending[size:])
            return data
        want = self.limit + 1 - self.count if size < 0 else min(size, self.limit + 1 - self.count)
        data = self._raw.read(max(want, 1))
        self.count += len(data)
        if self.count > self.limit:
            raise ExportTooLarge(f"Cannot import: {self.label} holds more than {human_size(self.limit)} of JSON "
                                 f"(at most {human_size(self.limit)} is read). Nothing was imported.")
        return data

    def first(self) -> bytes:
        """The first byte that is not whitespace (b"" for an empty file), left to be read again."""
        head = b""
        while len(head) < 4:
            more = self.read(_CHUNK)
            if not more:
                break
            head += more
        if head.startswith(codecs.BOM_UTF8):
            head = head[len(codecs.BOM_UTF8):]
        self._pending = head
        while True:
            stripped = self._pending.lstrip(_WHITESPACE)
            if stripped:
                self._pending = stripped
                return stripped[:1]
            more = self.read(_CHUNK)
            if not more:
                self._pending = b""
                return b""
            self._pending = more


@contextmanager
def export_stream(path: Path) -> Iterator[tuple[CappedStream, int]]:
    """The export's JSON bytes as a capped stream, with the size they claim to have."""
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode) or not stat.S_ISREG(info.st_mode):
            raise InvalidInput(f"Cannot import {path}: it is not a regular file (choose the export's .json or .zip).")
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                member = next((m for m in archive.infolist() if m.filename.rsplit("/", 1)[-1] == "conversations.json"),
                              None)
                if member is None:
                    raise InvalidInput(f"{path} is a .zip without a conversations.json in it.")
                _check_size(member.file_size, f"{path.name}'s conversations.json")
                with archive.open(member) as raw:
                    yield CappedStream(raw, f"{path.name}'s conversations.json", MAX_EXPORT_BYTES), member.file_size
        else:
            _check_size(info.st_size, path.name)
            with path.open("rb") as raw:
                yield CappedStream(raw, path.name, MAX_EXPORT_BYTES), info.st_size
    except (OSError, zipfile.BadZipFile) as err:
        raise InvalidInput(f"Cannot read {path}: {getattr(err, 'strerror', None) or err}.") from err


def _check_size(size: int, label: str) -> None:
    if size > MAX_EXPORT_BYTES:
        raise ExportTooLarge(f"Cannot import: {label} is {human_size(size)}; an import reads at most "
                             f"{human_size(MAX_EXPORT_BYTES)}. Nothing was imported.")


def read_text(stream: CappedStream, label: str) -> str:
    """The whole export as text (a small one)."""
    data = stream.read()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InvalidInput(f"Cannot import: {label} is not UTF-8 text (byte {err.start}). Nothing was imported."
                           ) from None


def stream_conversations(stream: CappedStream, one: OneReader, single_allowed: bool, items: str = "conversations"
                         ) -> Iterator[ImportedConversation]:
    """The conversations of a large export one at a time, each read by `one` (`items`: what the top-level list's
    items are called in errors); a top level that is one object is a single conversation when `single_allowed`
    (Palimpsest's export of one session)."""
    import ijson

    first = stream.first()
    if first != b"[" and not (single_allowed and first == b"{"):
        found = {b"{": "an object", b"": "nothing"}.get(first, "something else")
        raise MalformedExport("the top level", f"expected a list of conversations, found {found}")
    listed = first == b"["
    try:
        for i, value in enumerate(_values(ijson.basic_parse(stream, use_float=True), listed, items)):
            where = f"{items}[{i}]" if listed else "the session"
            conversation = one(depth_checked(value, where), where)
            if conversation is not None:
                yield conversation
    except ijson.JSONError as err:
        problem = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise MalformedExport(f"about byte {stream.count:,}", f"invalid JSON ({problem})") from None
    except UnicodeDecodeError:
        raise MalformedExport(f"about byte {stream.count:,}", "text that is not UTF-8") from None


def _values(events: Iterator[tuple[str, Any]], listed: bool, items: str) -> Iterator[Any]:
    """The top-level list's items (or the one top-level value), built from parser events without recursion;
    MalformedExport past MAX_NESTING levels (a parser's own builder grows without bound on deep nesting)."""
    stack: list[list[Any]] = []  # [container, key] of each open list or object
    if listed:
        next(events)  # the top-level list's start
    for event, value in events:
        if event == "map_key":
            stack[-1][1] = value
            continue
        if event in ("start_map", "start_array"):
            if len(stack) >= MAX_NESTING:
                raise too_deep(items if listed else "the session")
            stack.append([{} if event == "start_map" else [], None])
            continue
        if event in ("end_map", "end_array"):
            if not stack:  # the top-level list ends
                return
            value = stack.pop()[0]
        if not stack:
            yield value
            continue
        parent, key = stack[-1]
        if isinstance(parent, dict):
            parent[key] = value
        else:
            parent.append(value)
