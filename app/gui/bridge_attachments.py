"""The chat screen's attachments over the Container: intake, thumbnails, viewing, releasing (on the worker)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from app.container import Container
from data.attachments.thumbnails import thumbnail_png, viewable_copy
from domain.attachment import Attachment, AttachmentKind
from domain.errors import StorageError
from domain.models import SessionId
from ui.attachments_backend import AttachmentPreview


class AttachmentsBridge:
    """Implements AttachmentsBackend."""

    _c: Container

    async def take_in(self, path: str) -> AttachmentPreview:
        return self._preview(self._c.attachments.from_path(Path(path)))

    async def take_in_bytes(self, name: str, data: bytes) -> AttachmentPreview:
        return self._preview(self._c.attachments.from_bytes(name, data))

    async def release(self, attachments: Sequence[Attachment]) -> None:
        self._c.storage.release_unreferenced({a.sha256 for a in attachments})

    async def thumbnail(self, attachment: Attachment) -> bytes | None:
        if attachment.kind is not AttachmentKind.IMAGE:
            return None
        try:
            return thumbnail_png(self._c.media.data(attachment))
        except StorageError:
            return None

    async def viewable_file(self, attachment: Attachment) -> str:
        return str(viewable_copy(self._c.media.data(attachment), attachment.name, attachment.sha256))

    async def index_document(self, attachment: Attachment) -> None:
        await asyncio.to_thread(self._c.document_cards.ensure, attachment)

    async def cited_document(self, session_id: SessionId, name: str) -> str | None:
        session = self._c.sessions.get(session_id)
        info = self._c.documents.find(session_id, session.current_agent_id if session else None, name)
        return info.path if info is not None and info.path and Path(info.path).is_file() else None

    def _preview(self, attachment: Attachment) -> AttachmentPreview:
        thumb = thumbnail_png(self._c.media.data(attachment)) if attachment.kind is AttachmentKind.IMAGE else None
        return AttachmentPreview(attachment, thumb)
