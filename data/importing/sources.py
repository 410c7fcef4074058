"""Every source an import reads, by kind: the JSON exports (a file, or the export's .zip), llm's database, LM Studio's
and Jan's folders; the files their messages had taken in as attachments; and `detect`, which tells the kind of a file
or folder itself."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from data.attachments.intake import AttachmentIntake, AttachmentRejected
from data.importing.archive_files import iter_attached
from data.importing.export_file import (
    STREAM_FROM,
    OneReader,
    count_conversations,
    export_stream,
    read_text,
    stream_conversations,
)
from data.importing.folders import jan_threads, lmstudio_files, read_jan, read_lmstudio
from data.importing.llm_logs import SQLITE_MAGIC, read_llm
from domain.attachment import Attachment
from domain.errors import InvalidInput
from domain.importers import chatbox, chatgpt, claude, librechat, openwebui, palimpsest
from domain.importers.detect import NAMES, kind_of, sniff
from domain.importers.model import ImportedConversation, MalformedExport

READERS: dict[str, Callable[[str], list[ImportedConversation]]] = {
    "chatgpt": chatgpt.read_chatgpt, "claude": claude.read_claude, "palimpsest": palimpsest.read_palimpsest,
    "openwebui": openwebui.read_openwebui, "librechat": librechat.read_librechat, "chatbox": chatbox.read_chatbox}


@dataclass(frozen=True)
class Streamed:
    """How the exports of one kind are read conversation by conversation: the reader of one, what the top-level
    list's items are called, the name of a top level that is one conversation (None: it must be a list), and which
    items count as conversations."""

    one: OneReader
    items: str = "conversations"
    single: str | None = None
    counts: Callable[[Any], bool] = lambda item: True


STREAMED = {  # these exports are read conversation by conversation, whatever their size
    "chatgpt": Streamed(chatgpt.conversation, counts=lambda item: not isinstance(item, dict) or "mapping" in item),
    "claude": Streamed(claude.conversation), "palimpsest": Streamed(palimpsest.conversation, "sessions", "the session"),
    "openwebui": Streamed(openwebui.conversation, "chats", "chats[0]")}
FOLDERS = ("lmstudio", "jan", "llm")
KINDS = (*READERS, *FOLDERS)
_HEAD = 1 << 20  # how much of a large export `detect` reads to tell its kind


@contextmanager
def open_source(kind: str, path: Path, intake: AttachmentIntake | None = None
                ) -> Iterator[Iterable[ImportedConversation]]:
    """The conversations at `path` read as `kind` (a list, an iterable of known length, or an iterator for a large
    export), with the files their messages had taken in through `intake` (none are when it is None: their lines
    stay)."""
    if kind == "llm":
        yield read_llm(path, _quiet(intake.from_bytes) if intake else None,
                       _quiet(intake.from_path) if intake else None)
        return
    if kind in ("lmstudio", "jan"):
        found = read_lmstudio(path) if kind == "lmstudio" else read_jan(path)
        yield list(iter_attached(found, None, intake)) if intake else found
        return
    if kind not in READERS:
        raise InvalidInput(f"Unknown import kind {kind!r}; one of: {', '.join(KINDS)}.")
    total = None
    streamed = STREAMED.get(kind)
    if streamed is not None:
        with export_stream(path) as (stream, size):
            if size <= STREAM_FROM:  # a first pass, one conversation at a time, so progress can show a total
                total = count_conversations(stream, streamed.counts, streamed.items, streamed.single)
    with export_stream(path) as (stream, size):
        if streamed is None:
            conversations: Iterable[ImportedConversation] = READERS[kind](read_text(stream, path.name))
        else:
            conversations = stream_conversations(stream, streamed.one, streamed.items, streamed.single)
        if intake is not None:
            conversations = iter_attached(conversations, path, intake)
        yield conversations if total is None else Counted(conversations, total)


T = TypeVar("T")


class Counted(Generic[T]):
    """An iterable read once whose length is known before it is read (progress shows a total)."""

    def __init__(self, items: Iterable[T], count: int) -> None:
        self._items, self._count = items, count

    def __iter__(self) -> Iterator[T]:
        return iter(self._items)

    def __len__(self) -> int:
        return self._count


def _quiet(take: Callable[..., Attachment]) -> Callable[..., Attachment | None]:
    """`take` answering None for a file no attachment can be made of (its line then stays)."""
    def taken(*args: object) -> Attachment | None:
        try:
            return take(*args)
        except AttachmentRejected:
            return None
    return taken


def detect(path: Path) -> str:
    """The kind of the export, database or folder at `path`; InvalidInput saying what was looked for when no reader
    knows it."""
    if path.is_dir():
        if (path / "logs.db").is_file():
            return "llm"
        if jan_threads(path):
            return "jan"
        if lmstudio_files(path):
            return "lmstudio"
        raise InvalidInput(f"Cannot tell what {path} holds: no Jan threads, LM Studio conversations or llm logs.db "
                           f"in it. Name the kind: palimpsest import KIND PATH.")
    if path.name == "thread.json":
        return "jan"
    if path.name.endswith(".conversation.json"):
        return "lmstudio"
    try:
        with path.open("rb") as f:
            if f.read(16) == SQLITE_MAGIC:
                return "llm"
    except OSError as err:
        raise InvalidInput(f"Cannot read {path}: {err.strerror or err}.") from err
    with export_stream(path) as (stream, size):
        head = stream.read(_HEAD if size > STREAM_FROM else -1)
    text = head.decode("utf-8-sig", errors="replace")
    kind = None
    if size <= STREAM_FROM:
        try:
            kind = kind_of(json.loads(text))
        except (ValueError, RecursionError):
            raise MalformedExport("the top level", "not JSON, a .zip or an SQLite database") from None
    kind = kind or sniff(text)
    if kind is None:
        where = "its conversations.json" if zipfile.is_zipfile(path) else "it"
        raise InvalidInput(f"Cannot tell which app wrote {path.name}: {where} matches none of "
                           f"{', '.join(NAMES.values())}. Name the kind: palimpsest import KIND PATH.")
    return kind
