"""`palimpsest import chatgpt|claude|palimpsest FILE`: conversations from an export, all of them or none."""

from __future__ import annotations

import argparse
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from domain.errors import InvalidInput
from domain.importers.chatgpt import read_chatgpt
from domain.importers.claude import read_claude
from domain.importers.model import ImportedConversation
from domain.importers.palimpsest import read_palimpsest

if TYPE_CHECKING:
    from app.container import Container

READERS: dict[str, Callable[[str], list[ImportedConversation]]] = {
    "chatgpt": read_chatgpt, "claude": read_claude, "palimpsest": read_palimpsest}
PROGRESS_EVERY = 0.05  # a progress line each 5% of the conversations


def read_export(path: Path) -> str:
    """The export's JSON text: the file itself, or conversations.json inside the export's .zip."""
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                name = next((n for n in archive.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"), None)
                if name is None:
                    raise InvalidInput(f"{path} is a .zip without a conversations.json in it.")
                data = archive.read(name)
        else:
            data = path.read_bytes()
    except OSError as err:
        raise InvalidInput(f"Cannot read {path}: {err.strerror or err}.") from err
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InvalidInput(f"Cannot import: {path} is not UTF-8 text (byte {err.start}). Nothing was imported."
                           ) from None


def import_file(c: Container, kind: str, path: Path, err: TextIO) -> tuple[int, int, int]:
    """Reads and stores one export; returns (sessions imported, skipped as already there, messages)."""
    conversations = READERS[kind](read_export(path))
    step = max(1, int(len(conversations) * PROGRESS_EVERY))

    def progress(done: int, total: int) -> None:
        if done == total or done % step == 0:
            err.write(f"Importing: {done}/{total} conversations\n")
            err.flush()

    result = c.import_conversations(conversations, progress)
    return len(result.imported), len(result.skipped), result.messages


async def run_import(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Imports the file; nothing is stored when it is malformed (the error says where)."""
    imported, skipped, messages = import_file(c, args.action, Path(args.file), err)
    note = f"; {skipped} already imported before, skipped" if skipped else ""
    out.write(f"Imported {imported} conversation{'s' if imported != 1 else ''} ({messages} messages){note}.\n")
    return 0
