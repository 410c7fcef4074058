"""The files an export's messages had taken in as real attachments: embedded in the export (data: URLs) or in its
.zip (ChatGPT's uploads, stored beside conversations.json under their file id); a file that is in neither keeps its
placeholder line."""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from data.attachments.intake import MAX_BYTES, AttachmentIntake, AttachmentRejected
from domain.importers.model import FileRef, ImportedConversation


def archive_members(path: Path) -> dict[str, zipfile.ZipInfo]:
    """The archive's files by their file name (no folder); empty for a path that is not a .zip."""
    if not zipfile.is_zipfile(path):
        return {}
    with zipfile.ZipFile(path) as archive:
        return {m.filename.rsplit("/", 1)[-1]: m for m in archive.infolist() if not m.is_dir()}


def member_for(ref: FileRef, members: dict[str, zipfile.ZipInfo]) -> zipfile.ZipInfo | None:
    """The archive's file for `ref`: named by its file id (`file-XXXX-name.png`, `file_XXXX.png`), else by its name."""
    for name, member in members.items():
        if name == ref.file_id or name.startswith((ref.file_id + "-", ref.file_id + ".", ref.file_id + "_")):
            return member
    return members.get(ref.name) if ref.name else None


def attach_archive_files(conversations: Iterable[ImportedConversation], path: Path | None, intake: AttachmentIntake
                         ) -> list[ImportedConversation]:
    """Every conversation with the files its messages had taken in from the archive at `path`."""
    return list(iter_attached(conversations, path, intake))


def iter_attached(conversations: Iterable[ImportedConversation], path: Path | None, intake: AttachmentIntake
                  ) -> Iterator[ImportedConversation]:
    """The conversations one at a time, each with its files taken in (a large export stays streamed)."""
    members = archive_members(path) if path is not None else {}
    archive = zipfile.ZipFile(path) if members and path is not None else None
    try:
        for conversation in conversations:
            yield _attached(conversation, archive, members, intake) if conversation.files else conversation
    finally:
        if archive is not None:
            archive.close()


def _bytes(ref: FileRef, archive: zipfile.ZipFile | None, members: dict[str, zipfile.ZipInfo]) -> bytes | None:
    if ref.data is not None:
        return ref.data if len(ref.data) <= MAX_BYTES else None
    member = member_for(ref, members) if archive is not None else None
    if member is None or member.file_size > MAX_BYTES or archive is None:
        return None
    return archive.read(member)


def _attached(c: ImportedConversation, archive: zipfile.ZipFile | None, members: dict[str, zipfile.ZipInfo],
              intake: AttachmentIntake) -> ImportedConversation:
    by_id = {m.id: m for m in c.messages}
    for ref in c.files:
        message, data = by_id.get(ref.message_id), _bytes(ref, archive, members)
        if message is None or data is None:
            continue
        try:
            attachment = intake.from_bytes(ref.name, data)
        except AttachmentRejected:
            continue  # a file no request could carry keeps its placeholder line
        text = "\n".join(line for line in message.content.split("\n") if line not in ref.lines)
        by_id[ref.message_id] = replace(message, content=text.strip("\n"),
                                        attachments=(*message.attachments, attachment),
                                        has_image=message.has_image or attachment.kind.value == "image")
    return replace(c, messages=tuple(by_id[m.id] for m in c.messages))
