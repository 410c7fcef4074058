"""The attachments part of the UI tests' fake backend: real intake and thumbnails over a temporary folder, and a
record of what was released and opened."""

from __future__ import annotations

import asyncio
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
from data.attachments.thumbnails import thumbnail_png, viewable_copy
from domain.attachment import Attachment, AttachmentKind
from ui.attachments_backend import AttachmentPreview


class FakeAttachments:
    """Implements AttachmentsBackend for FakeChatBackend."""

    def __init__(self) -> None:
        # removed with this object (or at exit): a run of the UI tests made a thousand of these and left them
        self._folder = tempfile.TemporaryDirectory(prefix="palimpsest-ui-attachments-", ignore_cleanup_errors=True)
        self.attachment_dir = Path(self._folder.name)
        self.intake = AttachmentIntake(AttachmentFiles(self.attachment_dir / "store"))
        self.released: list[str] = []
        self.opened: list[str] = []
        self.knowledge_files: dict[str, str] = {}  # name -> path of the knowledge files citations may open
        self.indexed: list[str] = []  # the attached documents indexed, in order
        self.refreshed: list[str | None] = []  # the conversations whose agent's knowledge was checked for changes
        self.refresh_lines: list[str] = []  # what the next checks report as indexed again
        self.index_gate: threading.Event | None = None  # when given: indexing waits for it (a test sees the status)

    async def take_in(self, path: str) -> AttachmentPreview:
        return self._preview(self.intake.from_path(Path(path)))

    async def take_in_bytes(self, name: str, data: bytes) -> AttachmentPreview:
        return self._preview(self.intake.from_bytes(name, data))

    async def release(self, attachments: Sequence[Attachment]) -> None:
        self.released.extend(a.name for a in attachments)

    async def thumbnail(self, attachment: Attachment) -> bytes | None:
        if attachment.kind is not AttachmentKind.IMAGE or not self.intake.files.exists(attachment.sha256):
            return None
        return thumbnail_png(self.intake.files.read(attachment.sha256))

    async def viewable_file(self, attachment: Attachment) -> str:
        path = str(viewable_copy(self.intake.files.read(attachment.sha256), attachment.name, attachment.sha256))
        self.opened.append(path)
        return path

    async def index_document(self, attachment: Attachment) -> None:
        if self.index_gate is not None:
            await asyncio.to_thread(self.index_gate.wait, 30)
        self.indexed.append(attachment.name)

    async def refresh_knowledge(self, session_id: str | None) -> Sequence[str]:
        self.refreshed.append(session_id)
        return self.refresh_lines

    async def cited_document(self, session_id: str, name: str) -> str | None:
        return self.knowledge_files.get(name)

    def _preview(self, attachment: Attachment) -> AttachmentPreview:
        thumb = thumbnail_png(self.intake.files.read(attachment.sha256)) if attachment.kind is AttachmentKind.IMAGE \
            else None
        return AttachmentPreview(attachment, thumb)
