"""The chat screen's attachment verbs: attach files or a pasted image, remove one before sending, reattach an
earlier one, open the stored copy; thumbnails fetched on the worker and kept by content digest."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from domain.attachment import Attachment
from ui.attachments_backend import AttachmentPreview, AttachmentsBackend
from ui.error_text import describe
from ui.signals import emit
from ui.viewmodels.chat_state import ChatState
from ui.worker import AsyncWorker

PASTED_NAME = "pasted image.png"


class ChatAttachments:
    """Mixed into ChatViewModel; relies on its state, worker and backend (which also implements AttachmentsBackend)."""

    _backend: Any
    _worker: AsyncWorker
    _state: ChatState
    notice: Any  # Signal(str)
    file_ready: Any  # Signal(str): a path to open in the system's viewer
    thumbnails_changed: Any  # Signal(): a thumbnail arrived

    def _set(self, **changes: Any) -> None:
        raise NotImplementedError

    @property
    def _files(self) -> AttachmentsBackend:
        return cast(AttachmentsBackend, self._backend)

    @property
    def thumbnails(self) -> dict[str, bytes]:
        """PNG thumbnails by sha256 (filled as they arrive)."""
        if not hasattr(self, "_thumbs"):
            self._thumbs: dict[str, bytes] = {}
            self._asked: set[str] = set()
        return self._thumbs

    def attach_paths(self, paths: Sequence[str]) -> None:
        """Takes files in (checked and stored on the worker); each shows in the composer, or a notice says why not."""
        for path in paths:
            self._take(lambda p=path: self._files.take_in(p))

    def attach_image(self, png: bytes, name: str = PASTED_NAME) -> None:
        """Takes a pasted image in (PNG bytes from the clipboard)."""
        self._take(lambda: self._files.take_in_bytes(name, png))

    def _take(self, call: Any) -> None:
        self._set(attaching=self._state.attaching + 1)

        def taken(preview: AttachmentPreview) -> None:
            if preview.thumbnail:
                self.thumbnails[preview.attachment.sha256] = preview.thumbnail
            self._set(attaching=self._state.attaching - 1, pending=(*self._state.pending, preview))

        def refused(error: Exception) -> None:
            self._set(attaching=self._state.attaching - 1)
            emit(self.notice, describe(error))

        self._worker.call(call, taken, refused)

    def remove_pending(self, index: int) -> None:
        """Takes a file out of the composer before sending; its stored copy goes unless a message refers to it."""
        pending = list(self._state.pending)
        if not 0 <= index < len(pending):
            return
        removed = pending.pop(index).attachment
        self._set(pending=tuple(pending))
        if all(p.attachment.sha256 != removed.sha256 for p in pending):
            self._worker.call(lambda: self._files.release([removed]), lambda _: None, lambda _: None)

    def reattach(self, attachments: Sequence[Attachment]) -> None:
        """Puts earlier attachments back into the composer: the next message sends them again."""
        present = {p.attachment.sha256 for p in self._state.pending}
        added = tuple(AttachmentPreview(a, self.thumbnails.get(a.sha256)) for a in attachments
                      if a.sha256 not in present)
        self._set(pending=(*self._state.pending, *added))

    def open_attachment(self, attachment: Attachment) -> None:
        """Opens the stored copy full size in the system's viewer (file_ready carries its path)."""
        self._worker.call(lambda: self._files.viewable_file(attachment), lambda path: emit(self.file_ready, path),
                          lambda error: emit(self.notice, describe(error)))

    def want_thumbnail(self, attachment: Attachment) -> None:
        """Fetches an image's thumbnail once (the view repaints when thumbnails_changed fires)."""
        thumbs = self.thumbnails
        if attachment.sha256 in thumbs or attachment.sha256 in self._asked:
            return
        self._asked.add(attachment.sha256)

        def got(data: bytes | None) -> None:
            if data:
                thumbs[attachment.sha256] = data
                emit(self.thumbnails_changed)

        self._worker.call(lambda: self._files.thumbnail(attachment), got, lambda _: None)
