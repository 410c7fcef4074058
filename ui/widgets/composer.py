"""The message composer: multi-line, Enter sends, Shift+Enter adds a line, disabled while a reply streams."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QPushButton, QWidget

from ui.signals import emit
from ui.viewmodels.chat_state import ChatState


class ComposerEdit(QPlainTextEdit):
    """A text box that sends on Enter and grows with its content up to a limit."""

    submitted = Signal()

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
        super().keyPressEvent(event)

    def _grow(self) -> None:
        lines = max(1, min(10, int(self.document().size().height())))
        height = int(self.fontMetrics().lineSpacing() * lines + 22)
        self.setFixedHeight(max(46, height))


class Composer(QWidget):
    """Text box plus Send / Stop; emits send(text) and stop()."""

    send = Signal(str)
    stop = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ComposerBar")
        self.edit = ComposerEdit(self)
        self.button = QPushButton("Send", self)
        self.button.setObjectName("PrimaryButton")
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(20, 8, 20, 14)
        layout.setSpacing(10)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        self._streaming = False
        self.edit.submitted.connect(self._submit)
        self.button.clicked.connect(self._clicked)

    def show_state(self, state: ChatState) -> None:
        """Disables typing while a reply streams; the button turns into Stop."""
        self._streaming = state.streaming
        self.edit.setReadOnly(state.streaming)
        self.edit.setEnabled(state.selection is not None)
        self.button.setText("Stop" if state.streaming else "Send")
        self.button.setObjectName("StopButton" if state.streaming else "PrimaryButton")
        self.button.style().unpolish(self.button)
        self.button.style().polish(self.button)
        self.button.setToolTip("Stop the reply (Esc)" if state.streaming else "Send (Enter)")
        self.button.setEnabled(state.streaming or state.can_send)
        self.edit.setPlaceholderText(
            "Message…  (Enter to send, Shift+Enter for a new line)" if state.selection is not None
            else "Add a provider key in Settings to start chatting.")

    def _submit(self) -> None:
        if self._streaming:
            return
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
