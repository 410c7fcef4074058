"""An export file as the import reads it: the file itself or conversations.json inside an export's .zip, only a
regular file, at most MAX_EXPORT_BYTES uncompressed (a zip's own claim checked first, then the bytes counted as
they are read), read conversation by conversation (json_stream: syntax errors at a line and column) so memory holds
one conversation at a time whatever the file's size; the few kinds read whole are parsed whole."""

from __future__ import annotations

import codecs
import stat
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from data.importing.json_stream import JsonItems
from domain.attachment import human_size
from domain.errors import InvalidInput
from domain.importers.model import ImportedConversation, MalformedExport, depth_checked

MAX_EXPORT_BYTES = 1_000_000_000  # the largest export (uncompressed) an import reads: 1 GB
STREAM_FROM = 32_000_000  # exports up to this size (uncompressed) are counted first (progress shows a total)
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


def stream_conversations(stream: CappedStream, one: OneReader, items: str = "conversations",
                         single: str | None = None) -> Iterator[ImportedConversation]:
    """The conversations of an export one at a time, each decoded and read by `one` as the file is read (`items`:
    what the top-level list's items are called in errors); a top level that is one object is a single conversation
    named `single` when that is given (Palimpsest's export of one session, Open WebUI's of one chat)."""
    for where, value in _top_level(stream, items, single):
        conversation = one(depth_checked(value, where), where)
        if conversation is not None:
            yield conversation


def count_conversations(stream: CappedStream, counted: Callable[[Any], bool], items: str = "conversations",
                        single: str | None = None) -> int:
    """How many of the export's top-level items `counted` accepts, each decoded and dropped in turn."""
    return sum(1 for _where, value in _top_level(stream, items, single) if counted(value))


def _top_level(stream: CappedStream, items: str, single: str | None) -> Iterator[tuple[str, Any]]:
    first = stream.first()
    if first != b"[" and not (single is not None and first == b"{"):
        found = {b"{": "an object", b"": "nothing"}.get(first, "something else")
        raise MalformedExport("the top level", f"expected a list of conversations, found {found}")
    reader = JsonItems(stream.read)
    if first == b"[":
        yield from ((f"{items}[{i}]", value) for i, value in enumerate(reader.items(lambda i: f"{items}[{i}]")))
    else:
        assert single is not None
        value = reader.value(single)
        reader.end()
        yield single, value
