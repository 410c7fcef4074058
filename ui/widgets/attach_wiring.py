"""Connects the chat screen's attachment gestures: the paperclip's file dialog, files dropped on the window, pasted
images and files, removing one from the composer, thumbnails in the chat, opening an attachment full size."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QPixmap
from PySide6.QtWidgets import QFileDialog, QWidget

from domain.attachment import Attachment
from ui.viewmodels.chat import ChatViewModel
from ui.widgets.chat_view import ChatView
from ui.widgets.composer import Composer, local_files

FILE_FILTER = ("Images, PDFs and text (*.png *.jpg *.jpeg *.gif *.webp *.bmp *.tif *.tiff *.pdf *.docx *.epub "
               "*.txt *.md *.py *.json *.csv *.log *.js *.ts *.rs *.go *.java *.c *.h *.cpp *.yaml *.yml *.toml "
               "*.html *.css *.sql *.sh);;"
               "All files (*)")


class AttachmentWiring(QObject):
    """Owned by the main window; its event filter takes files dropped anywhere on the window."""

    def __init__(self, window: QWidget, vm: ChatViewModel, composer: Composer, view: ChatView) -> None:
        super().__init__(window)
        self._window, self._vm, self._view = window, vm, view
        self._pixmaps: dict[str, QPixmap] = {}
        self.clip_menu: Callable[[], bool] | None = None  # the paperclip's menu instead of the dialog (MCP servers on)
        composer.attach_clicked.connect(self._clip)
        composer.remove_attachment.connect(vm.remove_pending)
        composer.edit.files_pasted.connect(vm.attach_paths)
        composer.edit.image_pasted.connect(vm.attach_image)
        self._cited_page: int | None = None  # the page a citation asked for, until its file is ready
        vm.file_ready.connect(self.open_file)  # at the cited page when a page citation asked for it
        view.open_citation = self.open_citation  # type: ignore[attr-defined]  # a click on `[name.pdf p. N]`
        vm.thumbnails_changed.connect(view.viewport().update)
        view.delegate.thumbnail = self.thumbnail
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def open_citation(self, name: str, page: int | None) -> bool:
        """Opens the document a citation names at the cited page (a section citation: the file): the newest
        attachment of that name shown, else the knowledge file of that name (a notice when there is none)."""
        rows = self._vm.model.rows()
        found = next((a for row in reversed(rows) for a in row.attachments if a.name.lower() == name.lower()), None)
        self._cited_page = page
        if found is None:
            self._vm.open_cited_document(name)
        else:
            self._vm.open_attachment(found)
        return True

    def open_file(self, path: str) -> None:
        """Opens a stored copy in the system's viewer; one a page citation asked for at its page (`#page=N`, which
        browsers and most PDF viewers follow)."""
        url = QUrl.fromLocalFile(path)
        page, self._cited_page = self._cited_page, None
        if page is not None:
            url.setFragment(f"page={page}")
        self._view.open_url(url)

    def _clip(self) -> None:
        if self.clip_menu is None or not self.clip_menu():
            self.choose_files()

    def choose_files(self) -> None:
        """The paperclip: a file dialog; the chosen files are taken in."""
        paths, _ = QFileDialog.getOpenFileNames(self._window, "Attach files", "", FILE_FILTER)
        if paths:
            self._vm.attach_paths(paths)

    def thumbnail(self, attachment: Attachment) -> QPixmap | None:
        """The thumbnail of an image attachment, fetched on the worker the first time it is painted."""
        pixmap = self._pixmaps.get(attachment.sha256)
        if pixmap is not None:
            return pixmap
        data = self._vm.thumbnails.get(attachment.sha256)
        if data is None:
            self._vm.want_thumbnail(attachment)
            return None
        pixmap = QPixmap()
        pixmap.loadFromData(data)
        self._pixmaps[attachment.sha256] = pixmap
        return pixmap

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(event, QDragEnterEvent) or event.type() == QEvent.Type.DragMove:
            mime = event.mimeData() if isinstance(event, QDropEvent) else None
            if mime is not None and local_files(mime):
                event.acceptProposedAction()  # type: ignore[attr-defined]
                return True
        elif isinstance(event, QDropEvent) and event.type() == QEvent.Type.Drop:
            paths = local_files(event.mimeData())
            if paths:
                event.acceptProposedAction()
                self._vm.attach_paths(paths)
                return True
        return super().eventFilter(watched, event)
