"""What the chat screen needs for attachments: taking files in, thumbnails, opening the stored copy, releasing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from domain.attachment import Attachment
from domain.models import SessionId


@dataclass(frozen=True)
class AttachmentPreview:
    """A file taken in for the composer: the stored attachment and a small PNG thumbnail (images only)."""

    attachment: Attachment
    thumbnail: bytes | None = None


class AttachmentsBackend(Protocol):
    """Attachments of the chat screen; every call runs on the worker (files are read there, never on the GUI)."""

    async def take_in(self, path: str) -> AttachmentPreview:
        """Checks and stores a file (InvalidInput naming it when it cannot be attached)."""
        raise NotImplementedError

    async def take_in_bytes(self, name: str, data: bytes) -> AttachmentPreview:
        """Checks and stores pasted bytes (an image on the clipboard) under `name`."""
        raise NotImplementedError

    async def release(self, attachments: Sequence[Attachment]) -> None:
        """Deletes the stored files of attachments removed before sending (those a message refers to stay)."""
        raise NotImplementedError

    async def thumbnail(self, attachment: Attachment) -> bytes | None:
        """A small PNG of a stored image (None for other kinds or a file that is gone)."""
        raise NotImplementedError

    async def viewable_file(self, attachment: Attachment) -> str:
        """A path of a copy of the stored file under its own name, for the system's viewer."""
        raise NotImplementedError

    async def cited_document(self, session_id: SessionId, name: str) -> str | None:
        """The path on disk of the knowledge file of that name (or path) the conversation may read, for a citation
        to open; None when there is none (or its file is gone)."""
        raise NotImplementedError

    async def index_document(self, attachment: Attachment) -> None:
        """Indexes an attached document for search_documents now (off the worker's loop), so the first request that
        carries its card does not wait for it; nothing when it is indexed already."""
        raise NotImplementedError

    async def refresh_knowledge(self, session_id: SessionId | None) -> Sequence[str]:
        """Indexes again the knowledge folders (of the conversation's agent; None: of every agent) whose files were
        added, changed (size, mtime) or deleted since they were indexed, off the worker's loop; a report line per
        folder indexed again (none when nothing changed)."""
        raise NotImplementedError
