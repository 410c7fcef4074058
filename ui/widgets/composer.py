"""The message composer: multi-line, Enter sends, Shift+Enter adds a line; while a reply streams typing goes on and
Enter queues the message (shown above the box, cancellable) until the turn ends."""

from __future__ import annotations

import re

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMimeData, QSize, Qt, Signal
from PySide6.QtGui import QImage, QKeyEvent, QTextCursor, QTextOption
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QToolButton, QVBoxLayout, QWidget

from ui.signals import emit
from ui.state.chat_state import ChatState, Stopping
from ui.widgets.attachment_strip import AttachmentStrip
from ui.widgets.icons import paperclip_icon

LONG_RUN = re.compile(r"\S{1000}")  # a "word" this long (minified JSON, base64) is wrapped anywhere
PASTE_LIMIT = 1_000_000  # the most characters a message holds (the chat refuses more when sent, as the CLI does)


def local_files(source: QMimeData) -> list[str]:
    """The local file paths among a clipboard's or a drop's URLs."""
    return [url.toLocalFile() for url in source.urls() if url.isLocalFile()] if source.hasUrls() else []


def has_local_files(source: QMimeData) -> bool:
    """Whether the data carries local files (a copied file, files dragged from a file manager)."""
    return bool(local_files(source))


def image_png(source: QMimeData) -> bytes | None:
    """A clipboard image encoded as PNG (in memory), or None."""
    image = source.imageData()
    if not isinstance(image, QImage) or image.isNull():
        return None
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stubs want bytes; PySide6 takes a str
    buffer.close()
    return bytes(data.data())


class ComposerEdit(QPlainTextEdit):
    """A text box that sends on Enter and grows with its content up to a limit.

    Qt's word-boundary wrapping takes quadratic time on a line without spaces (a 1 MB minified JSON paste froze the
    window for half a minute), so text with such a run is wrapped anywhere until the box is empty again."""

    submitted = Signal()
    up_on_empty = Signal()  # Up in an empty composer: edit the last message
    files_pasted = Signal(list)  # local file paths pasted or dropped into the box
    image_pasted = Signal(bytes)  # an image on the clipboard, as PNG
    oversized_paste = Signal(str)  # pasted text longer than a message can hold: offered as a file instead

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Composer")
        self.setPlaceholderText("Message…  (Enter to send, Shift+Enter for a new line)")
        self.setTabChangesFocus(True)
        self.document().contentsChanged.connect(self._grow)
        self._grow()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            emit(self.submitted)
            return
        if event.key() == Qt.Key.Key_Up and not self.toPlainText():
            emit(self.up_on_empty)
            return
        super().keyPressEvent(event)

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return source.hasImage() or has_local_files(source) or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        if has_local_files(source):  # a copied or dropped file is attached, not pasted as its path
            emit(self.files_pasted, local_files(source))
            return
        if source.hasImage():
            png = image_png(source)
            if png:
                emit(self.image_pasted, png)
                return
        if source.hasText():
            if len(source.text()) > PASTE_LIMIT:  # it could never be sent as a message: not put in the box
                emit(self.oversized_paste, source.text())
                return
            self._fit_wrap(source.text())
        super().insertFromMimeData(source)

    def set_text(self, text: str) -> None:
        """Replaces the text (wrapping a huge unbroken run anywhere, as a paste does)."""
        self._fit_wrap(text)
        self.setPlainText(text)

    def _fit_wrap(self, text: str) -> None:
        if LONG_RUN.search(text):
            self.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere)

    def _grow(self) -> None:
        if self.document().isEmpty() and self.wordWrapMode() is not QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere:
            self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        lines = max(1, min(10, int(self.document().size().height())))
        height = int(self.fontMetrics().lineSpacing() * lines + 22)
        self.setFixedHeight(max(46, height))


EDIT_BAR_TEXT = "Editing your message · Esc to cancel"
EDIT_BAR_TIP = "Send makes it a new version of that message (the old one stays; ‹ › switches between them)"
PLACEHOLDER = "Message…  (Enter to send, Shift+Enter for a new line)"
STREAMING_PLACEHOLDER = "Type your next message — Enter queues it until the reply ends (Esc stops the reply)"
QUEUE_PREVIEW = 90


class Composer(QWidget):
    """Text box plus Send / Stop, the paperclip, the files to send, the queued message and the edit bar; emits
    send(text), stop(), cancel_queued(), cancel_edit(), attach_clicked() and remove_attachment(index)."""

    send = Signal(str)
    draft_changed = Signal(str)  # the text typed, pasted or cut (the state's draft follows it)
    stop = Signal()
    cancel_queued = Signal()
    cancel_edit = Signal()
    attach_clicked = Signal()
    remove_attachment = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ComposerBar")
        self.edit = ComposerEdit(self)
        self.button = QPushButton("Send", self)
        self.button.setObjectName("PrimaryButton")
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.queued = QWidget(self)
        self.queued_label = QLabel(self.queued)
        self.queued_label.setObjectName("Muted")
        self.queued_cancel = QPushButton("Cancel", self.queued)
        self.queued_cancel.setToolTip("Don't send it: put it back in the box to edit")
        self.queued_cancel.setCursor(Qt.CursorShape.PointingHandCursor)
        strip = QHBoxLayout(self.queued)
        strip.setContentsMargins(2, 0, 2, 0)
        strip.addWidget(self.queued_label, 1)
        strip.addWidget(self.queued_cancel)
        self.queued.hide()
        self.edit_bar = EditBar(self)
        self.edit_bar.close_button.clicked.connect(lambda: emit(self.cancel_edit))
        self._syncing = False  # the box is being set to the state's draft: not a change of the user's
        self.edit.textChanged.connect(self._typed)
        self.clip = QToolButton(self)
        self.clip.setObjectName("Paperclip")
        self.clip.setIcon(paperclip_icon("#6b7280"))
        self.clip.setIconSize(QSize(20, 20))
        self.clip.setToolTip("Attach images, PDFs or text files (or drop them on the window, or paste)")
        self.clip.setCursor(Qt.CursorShape.PointingHandCursor)
        self.clip.clicked.connect(lambda: emit(self.attach_clicked))
        self.strip = AttachmentStrip(self)
        self.strip.remove.connect(lambda i: emit(self.remove_attachment, i))
        self._has_files = False
        row = QHBoxLayout()
        row.setSpacing(10)
        row.addWidget(self.clip, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.edit, 1)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 8, 20, 14)
        layout.setSpacing(6)
        layout.addWidget(self.queued)
        layout.addWidget(self.edit_bar)
        layout.addWidget(self.strip)
        layout.addLayout(row)
        self._streaming = False
        self.edit.submitted.connect(self._submit)
        self.button.clicked.connect(self._clicked)
        self.queued_cancel.clicked.connect(self.cancel_queued)

    def show_state(self, state: ChatState) -> None:
        """The button turns into Stop while a reply streams (typing goes on); a queued message shows above."""
        self._streaming = state.streaming
        stopping = isinstance(state.current_turn, Stopping)  # Stop pressed: the stream winds down
        self.edit.setEnabled(state.selection is not None)
        self.button.setText("Stopping…" if stopping else "Stop" if state.streaming else "Send")
        self.button.setObjectName("StopButton" if state.streaming else "PrimaryButton")
        self.button.style().unpolish(self.button)
        self.button.style().polish(self.button)
        self.button.setToolTip("Stop the reply (Esc)" if state.streaming else "Send (Enter)")
        self.button.setEnabled((state.streaming and not stopping) or state.can_send)
        self.clip.setEnabled(state.selection is not None)
        self.strip.show_pending(state.pending, state.attaching, state.indexing)
        self._has_files = bool(state.pending)
        self.edit.setPlaceholderText(
            (STREAMING_PLACEHOLDER if state.streaming else PLACEHOLDER) if state.selection is not None
            else "Add a provider key in Settings › Providers to start chatting.")
        self.show_draft(state.draft)
        self.edit_bar.setVisible(state.editing is not None)
        self.queued.setVisible(state.queued is not None)
        if state.queued is not None:
            preview = " ".join(state.queued.split())
            preview = preview if len(preview) <= QUEUE_PREVIEW else preview[:QUEUE_PREVIEW - 1] + "…"
            what = "Queued edit" if state.composer.queued is not None and state.composer.queued.edit else "Queued"
            self.queued_label.setText(f"{what} — sent when the reply ends: “{preview}”")
            self.queued_label.setToolTip(state.queued)

    def show_draft(self, draft: str) -> None:
        """Puts the state's draft in the box when it differs from what the box holds (a change typed here comes back
        equal: the box and its cursor are left alone)."""
        if draft == self.edit.toPlainText():
            return
        self._syncing = True
        try:
            self.edit.set_text(draft)
        finally:
            self._syncing = False
        self.edit.moveCursor(QTextCursor.MoveOperation.End)

    def take_focus(self) -> None:
        """The box takes the focus, its cursor at the end (a message to edit, or one given back)."""
        self.edit.moveCursor(QTextCursor.MoveOperation.End)
        self.edit.setFocus()

    def _typed(self) -> None:
        if not self._syncing:
            emit(self.draft_changed, self.edit.toPlainText())

    def _submit(self) -> None:
        text = self.edit.toPlainText()
        if text.strip() or self._has_files:
            emit(self.send, text)

    def _clicked(self) -> None:
        if self._streaming:
            emit(self.stop)
        else:
            self._submit()


class EditBar(QWidget):
    """Above the composer while a message is being edited: says so, and × (or Esc) cancels the edit."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("EditBar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)  # its background and accent edge show
        self.label = QLabel(EDIT_BAR_TEXT, self)
        self.label.setObjectName("EditBarText")
        self.label.setToolTip(EDIT_BAR_TIP)
        self.close_button = QToolButton(self)
        self.close_button.setText("×")
        self.close_button.setObjectName("EditBarClose")
        self.close_button.setToolTip("Cancel the edit (Esc)")
        self.close_button.setAccessibleName("Cancel the edit")
        self.close_button.setCursor(Qt.CursorShape.PointingHandCursor)
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 4, 4, 4)
        row.addWidget(self.label, 1)
        row.addWidget(self.close_button)
        self.hide()
