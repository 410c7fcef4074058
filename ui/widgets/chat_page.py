"""The chat page under the header: the message list (or the empty-chat hint), the provider-silence and compaction
bars, and the composer."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

from ui.state.chat_state import ChatState
from ui.widgets.chat_view import ChatView
from ui.widgets.composer import Composer

EMPTY_HINT = (
    "<div style='font-size:20px; font-weight:600'>What shall we work on?</div>"
    "<div>Conversations here can run for weeks: older turns are summarized automatically, "
    "and every original stays on this computer.</div>")


class ChatPage(QWidget):
    """Lays out the chat list, its bars and the composer; shows the bars and the empty hint from the chat state."""

    def __init__(self, chat_view: ChatView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chat_view = chat_view
        self.empty_hint = QLabel(EMPTY_HINT, self)
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setObjectName("Muted")
        self.chat_stack = QStackedWidget(self)
        self.chat_stack.addWidget(self.empty_hint)
        self.chat_stack.addWidget(chat_view)
        self.compacting_bar = QLabel("Compacting… summarizing older messages so the conversation fits.", self)
        self.compacting_bar.setObjectName("CompactingBar")
        self.compacting_bar.hide()
        self.waiting_bar = QLabel("", self)  # under the streaming reply while the provider is silent
        self.waiting_bar.setObjectName("Muted")
        self.waiting_bar.setContentsMargins(20, 2, 20, 2)
        self.waiting_bar.hide()
        self.composer = Composer(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.chat_stack, 1)
        layout.addWidget(self.waiting_bar)
        layout.addWidget(self.compacting_bar)
        layout.addWidget(self.composer)

    def show_state(self, state: ChatState) -> None:
        """The bars, and the hint in place of an empty list (a new chat not yet sent)."""
        self.compacting_bar.setVisible(state.compacting)
        waiting = state.streaming and state.waiting > 0
        self.waiting_bar.setText(f"Waiting for the provider… {state.waiting} s" if waiting else "")
        self.waiting_bar.setVisible(waiting)
        empty = state.session is None and self.chat_view.vm.model.rowCount() == 0 and not state.streaming
        self.chat_stack.setCurrentWidget(self.empty_hint if empty else self.chat_view)

    def show_list(self) -> None:
        """A message was sent: the list shows (not the hint)."""
        self.chat_stack.setCurrentWidget(self.chat_view)

    def type_into_composer(self, text: str) -> None:
        """Typing after selecting text in the chat goes on in the composer."""
        edit = self.composer.edit
        if edit.isEnabled() and not edit.isReadOnly():
            edit.setFocus()
            edit.insertPlainText(text)
