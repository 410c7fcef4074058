"""The chat screen's attachment verbs: attach files or a pasted image, remove one before sending, reattach an
earlier one, open the stored copy; thumbnails fetched on the worker and kept by content digest."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from domain.attachment import Attachment
from domain.documents import is_document
from domain.models import SessionId
from ui.attachments_backend import AttachmentPreview, AttachmentsBackend
from ui.error_text import describe
from ui.signals import emit
from ui.state.chat_events import AttachEnded, AttachStarted, IndexingChanged, PendingChanged

if TYPE_CHECKING:
    from ui.viewmodels.chat import ChatViewModel

PASTED_NAME = "pasted image.png"


class AttachmentsController:
    """Takes files in on the worker (the composer shows them as they arrive) and keeps their thumbnails."""

    def __init__(self, vm: ChatViewModel) -> None:
        self._vm = vm
        self.thumbnails: dict[str, bytes] = {}  # PNG thumbnails by sha256 (filled as they arrive)
        self._asked: set[str] = set()

    @property
    def _files(self) -> AttachmentsBackend:
        return cast(AttachmentsBackend, self._vm.backend)  # the chat backend also implements AttachmentsBackend

    def attach_paths(self, paths: Sequence[str]) -> None:
        """Takes files in (checked and stored on the worker); each shows in the composer, or a notice says why not."""
        for path in paths:
            self._take(self._taking(path))

    def _taking(self, path: str) -> Callable[[], Any]:
        return lambda: self._files.take_in(path)

    def attach_image(self, png: bytes, name: str | None = None) -> None:
        """Takes a pasted image in (PNG bytes from the clipboard)."""
        self._take(lambda: self._files.take_in_bytes(name or PASTED_NAME, png))

    def _take(self, call: Callable[[], Any]) -> None:
        vm = self._vm
        vm.dispatch(AttachStarted())

        def taken(preview: AttachmentPreview) -> None:
            if preview.thumbnail:
                self.thumbnails[preview.attachment.sha256] = preview.thumbnail
            vm.dispatch(AttachEnded(preview))
            if is_document(preview.attachment):
                self._index(preview.attachment)

        def refused(error: Exception) -> None:
            vm.dispatch(AttachEnded(None))
            emit(vm.notice, describe(error))

        vm.worker.call(call, taken, refused)

    def _index(self, attachment: Attachment) -> None:
        """Indexes a document large enough to go as a card, in the background, the composer saying so meanwhile."""
        vm = self._vm
        vm.dispatch(IndexingChanged(attachment.name, started=True))

        def failed(error: Exception) -> None:
            vm.dispatch(IndexingChanged(attachment.name, started=False))
            emit(vm.notice, f"{attachment.name} could not be indexed for search: {describe(error)}")

        vm.worker.call(lambda: self._files.index_document(attachment),
                       lambda _: vm.dispatch(IndexingChanged(attachment.name, started=False)), failed)

    def remove_pending(self, index: int) -> None:
        """Takes a file out of the composer before sending; its stored copy goes unless a message refers to it."""
        pending = list(self._vm.state.pending)
        if not 0 <= index < len(pending):
            return
        removed = pending.pop(index).attachment
        self._vm.dispatch(PendingChanged(tuple(pending)))
        if all(p.attachment.sha256 != removed.sha256 for p in pending):
            self._vm.worker.call(lambda: self._files.release([removed]), lambda _: None, lambda _: None)

    def reattach(self, attachments: Sequence[Attachment]) -> None:
        """Puts earlier attachments back into the composer: the next message sends them again."""
        pending = self._vm.state.pending
        present = {p.attachment.sha256 for p in pending}
        added = tuple(AttachmentPreview(a, self.thumbnails.get(a.sha256)) for a in attachments
                      if a.sha256 not in present)
        self._vm.dispatch(PendingChanged((*pending, *added)))

    def open_attachment(self, attachment: Attachment) -> None:
        """Opens the stored copy full size in the system's viewer (file_ready carries its path)."""
        vm = self._vm
        vm.worker.call(lambda: self._files.viewable_file(attachment), lambda path: emit(vm.file_ready, path),
                       lambda error: emit(vm.notice, describe(error)))

    def open_cited_document(self, name: str) -> None:
        """Opens the knowledge file a citation names in the system's viewer (file_ready carries its path); a notice
        when the conversation has no such file."""
        vm = self._vm
        session = vm.state.session
        if session is None:
            return

        def found(path: str | None) -> None:
            if path:
                emit(vm.file_ready, path)
            else:
                emit(vm.notice, f"No document named {name} in this conversation or its agent's knowledge.")

        vm.worker.call(lambda: self._files.cited_document(session.id, name), found,
                       lambda error: emit(vm.notice, describe(error)))

    def refresh_knowledge(self, session_id: SessionId) -> None:
        """Indexes again, in the background, the knowledge folders of the conversation's agent whose files changed
        (size and mtime) since they were indexed; a notice says what changed, nothing is said when nothing did."""
        vm = self._vm

        def done(lines: Sequence[str]) -> None:
            if lines:
                emit(vm.notice, "Knowledge indexed again: " + "; ".join(lines))

        vm.worker.call(lambda: self._files.refresh_knowledge(session_id), done,
                       lambda error: emit(vm.notice, describe(error)))

    def want_thumbnail(self, attachment: Attachment) -> None:
        """Fetches an image's thumbnail once (the view repaints when thumbnails_changed fires)."""
        thumbs = self.thumbnails
        if attachment.sha256 in thumbs or attachment.sha256 in self._asked:
            return
        self._asked.add(attachment.sha256)

        def got(data: bytes | None) -> None:
            if data:
                thumbs[attachment.sha256] = data
                emit(self._vm.thumbnails_changed)

        self._vm.worker.call(lambda: self._files.thumbnail(attachment), got, lambda _: None)
