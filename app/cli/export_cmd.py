"""`palimpsest sessions export`: Markdown links the attachments from a folder beside the file (copies under their
names); JSON references them by digest (and that folder's path), or embeds them in base64 with --embed-attachments."""

from __future__ import annotations

import argparse
import base64
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from domain.attachment import Attachment
from domain.errors import InvalidInput, StorageError

if TYPE_CHECKING:
    from app.container import Container


def attachments_folder(output: Path) -> Path:
    """The folder beside an exported file that holds its attachments: trip.md -> trip_attachments/."""
    return output.with_name(f"{output.stem}_attachments")


def export_session(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Writes the export (to -o FILE or standard output) with its attachments; 0 on success."""
    files = c.export_session.attachments(args.id)
    missing = [a for a in files if not c.media.files.exists(a.sha256)]
    if missing:  # named in the export, not included: the rest is exported
        files = [a for a in files if a not in missing]
        names = ", ".join(a.name for a in missing[:5]) + (" …" if len(missing) > 5 else "")
        err.write(f"{len(missing)} attachment file(s) are missing from the data folder and are only named in the "
                  f"export: {names}.\n")
    output = Path(args.output) if args.output else None
    embed = bool(getattr(args, "embed_attachments", False))
    if embed and args.format != "json":
        raise InvalidInput("--embed-attachments is for --format json; Markdown links the files from a folder "
                           "beside the file it is written to (-o FILE).")
    links: dict[str, str] = {}
    embedded: dict[str, str] = {}
    if files and embed:
        embedded = {a.sha256: base64.b64encode(_data(c, a)).decode("ascii") for a in files}
    elif files and output is not None:
        links = _copy_beside(c, files, output)
    text = c.export_session(args.id, args.format, links=links, embedded=embedded)
    if output is None:
        out.write(text + "\n")
        if files and not embed:
            err.write(f"{len(files)} attachment(s) are named but not included: export with -o FILE to copy them "
                      "beside it" + (", or with --embed-attachments" if args.format == "json" else "") + ".\n")
        return 0
    _write(output, text)
    where = f" (attachments in {attachments_folder(output)})" if links else ""
    err.write(f"Exported to {output}{where}\n")
    return 0


def _data(c: Container, attachment: Attachment) -> bytes:
    try:
        return c.media.data(attachment)
    except StorageError as exc:
        raise InvalidInput(f"{exc} The export was not written.") from None


def _copy_beside(c: Container, files: list[Attachment], output: Path) -> dict[str, str]:
    """Copies each attachment into the folder beside `output` under its own name (a repeated name gets the start of
    its digest); returns sha256 -> the path relative to the exported file."""
    folder = attachments_folder(output)
    links: dict[str, str] = {}
    used: set[str] = set()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for attachment in files:
            name = Path(attachment.name).name or "attachment"
            if name in used:
                name = f"{attachment.sha256[:8]}-{name}"
            used.add(name)
            (folder / name).write_bytes(_data(c, attachment))
            links[attachment.sha256] = f"{folder.name}/{name}"
    except OSError as exc:
        raise InvalidInput(f"Cannot write the attachments to {folder}: {exc.strerror or exc}. Choose another "
                           "file with -o.") from exc
    return links


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(f"Cannot write {path}: {exc.strerror or exc}. Choose another file with -o.") from exc
