"""`palimpsest import KIND PATH`: conversations from another client's export (or Palimpsest's own), all of them or
none; `import auto PATH` tells the kind itself and says which it found."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator, Sized
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from data.attachments.intake import AttachmentIntake
from data.importing.sources import detect, open_source
from domain.importers.detect import NAMES
from domain.importers.model import ImportedConversation
from domain.usecases.import_conversations import ImportResult

if TYPE_CHECKING:
    from app.container import Container

PROGRESS_EVERY = 0.05  # a progress line each 5% of the conversations
STREAMED_PROGRESS_EVERY = 500  # a large export's count is not known ahead: a line each 500 conversations


@contextmanager
def open_conversations(kind: str, path: Path, intake: AttachmentIntake | None = None
                       ) -> Iterator[Iterable[ImportedConversation]]:
    """The source's conversations: a list for a small export (read whole), an iterator read as it is stored for a
    large one (memory stays bounded); with `intake`, the files their messages had become attachments."""
    with open_source(kind, path, intake) as conversations:
        yield conversations


def import_file(c: Container, kind: str, path: Path, err: TextIO) -> ImportResult:
    """Reads and stores one export."""
    with open_conversations(kind, path, c.attachments) as conversations:
        known = len(conversations) if isinstance(conversations, Sized) else None
        step = max(1, int(known * PROGRESS_EVERY)) if known is not None else STREAMED_PROGRESS_EVERY

        def progress(done: int, total: int | None) -> None:
            if total is not None and (done == total or done % step == 0):
                err.write(f"Importing: {done}/{total} conversations\n")
            elif total is None and done % step == 0:
                err.write(f"Importing: {done} conversations so far\n")
            else:
                return
            err.flush()

        return c.import_conversations(conversations, progress)


def summary(result: ImportResult) -> str:
    """The line an import ends with: what was added, what gained messages, what was there already."""
    imported = len(result.imported)
    text = f"Imported {imported} conversation{'s' if imported != 1 else ''} ({result.messages} messages)"
    if result.updated:
        text += f"; {len(result.updated)} imported before gained new messages"
    if result.skipped:
        text += f"; {len(result.skipped)} already imported before, skipped"
    text += "."
    if result.repeated:
        names = ", ".join(result.repeated[:3]) + (" …" if len(result.repeated) > 3 else "")
        text += (f"\n{len(result.repeated)} id{'s' if len(result.repeated) != 1 else ''} appeared more than once in "
                 f"the file ({names}): each was stored as one session holding the messages of every copy.")
    return text


async def run_import(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Imports the file; nothing is stored when it is malformed (the error says where)."""
    kind, path = args.action, Path(args.file)
    if kind == "auto":
        kind = detect(path)
        out.write(f"Found {NAMES[kind]} ({kind}).\n")
        out.flush()
    out.write(summary(import_file(c, kind, path, err)) + "\n")
    return 0
