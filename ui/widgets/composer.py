"""The message composer: multi-line, Enter sends, Shift+Enter adds a line; while a reply streams typing goes on and
Enter queues the message (shown above the box, cancellable) until the turn ends."""

from __future__ import annotations

import re

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor, QTextOption
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from ui.signals import emit
from ui.viewmodels.chat_state import ChatState

LONG_RUN = re.compile(r"\S{1000}")  # a "word" this long (minified JSON, base64) is wrapped anywhere


class ComposerEdit(QPlainTextEdit):
    """A text box that sends on Enter and grows with its content up to a limit.

    Qt's word-boundary wrapping takes quadratic time on a line without spaces (a 1 MB minified JSON paste froze the
    window for half a minute), so text with such a run is wrapped anywhere until the box is empty again."""

    submitted = Signal()
    up_on_empty = Signal()  # Up in an empty composer: edit the last message

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

    def insertFromMimeData(self, source: QMimeData) -> None:
        if source.hasText():
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


PLACEHOLDER = "Message…  (Enter to send, Shift+Enter for a new line)"
STREAMING_PLACEHOLDER = "Type your next message — Enter queues it until the reply ends (Esc stops the reply)"
QUEUE_PREVIEW = 90


class Composer(QWidget):
    """Text box plus Send / Stop and the queued message; emits send(text), stop() and cancel_queued()."""

    send = Signal(str)
    stop = Signal()
    cancel_queued = Signal()

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
        row = QHBoxLayout()
        row.setSpacing(10)
        row.addWidget(self.edit, 1)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 8, 20, 14)
        layout.setSpacing(6)
        layout.addWidget(self.queued)
        layout.addLayout(row)
        self._streaming = False
        self.edit.submitted.connect(self._submit)
        self.button.clicked.connect(self._clicked)
        self.queued_cancel.clicked.connect(self.cancel_queued)

    def show_state(self, state: ChatState) -> None:
        """The button turns into Stop while a reply streams (typing goes on); a queued message shows above."""
        self._streaming = state.streaming
        self.edit.setEnabled(state.selection is not None)
        self.button.setText("Stop" if state.streaming else "Send")
        self.button.setObjectName("StopButton" if state.streaming else "PrimaryButton")
        self.button.style().unpolish(self.button)
        self.button.style().polish(self.button)
        self.button.setToolTip("Stop the reply (Esc)" if state.streaming else "Send (Enter)")
        self.button.setEnabled(state.streaming or state.can_send)
        self.edit.setPlaceholderText(
            (STREAMING_PLACEHOLDER if state.streaming else PLACEHOLDER) if state.selection is not None
            else "Add a provider key in Settings › Providers to start chatting.")
        self.queued.setVisible(state.queued is not None)
        if state.queued is not None:
            preview = " ".join(state.queued.split())
            preview = preview if len(preview) <= QUEUE_PREVIEW else preview[:QUEUE_PREVIEW - 1] + "…"
            self.queued_label.setText(f"Queued — sent when the reply ends: “{preview}”")
            self.queued_label.setToolTip(state.queued)

    def _submit(self) -> None:
        text = self.edit.toPlainText()
        if text.strip():
            emit(self.send, text)

    def _clicked(self) -> None:
        if self._streaming:
            emit(self.stop)
        else:
            self._submit()

    def accept_sent(self) -> None:
        """Clears the box after the view model took the message."""
        self.edit.clear()

    def restore(self, text: str) -> None:
        """Puts back a message that was not sent (refused, or withdrawn from the queue), above anything typed since."""
        typed = self.edit.toPlainText()
        self.edit.set_text(f"{text}\n\n{typed}" if typed.strip() else text)
        self.edit.moveCursor(QTextCursor.MoveOperation.End)
        self.edit.setFocus()
