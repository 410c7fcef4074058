"""The chat's dialogs and clipboard verbs, opened from the header, the list and the shortcuts: compact with focus
instructions, reset the context, read or edit the summary, read a long text, copy the last reply."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

from ui.viewmodels.chat import ChatViewModel
from ui.widgets.dialogs import CompactDialog, SummaryDialog, TextDialog, confirm_reset
from ui.widgets.snackbar import Snackbar


class ChatDialogs:
    """Asks (in dialogs over `parent`) and then calls the chat view model's verbs; tells the outcome in the
    snackbar."""

    def __init__(self, parent: QWidget, chat_vm: ChatViewModel, snackbar: Snackbar) -> None:
        self._parent = parent
        self._vm = chat_vm
        self._snackbar = snackbar

    def copy_last_reply(self) -> None:
        """Ctrl+Shift+C."""
        text = self._vm.last_reply()
        if text:
            QGuiApplication.clipboard().setText(text)
            self._snackbar.show_message("Last reply copied.", ms=1800)

    def compact_now(self) -> None:
        """Asks for focus instructions, then compacts."""
        dialog = CompactDialog(self._parent)
        if dialog.exec():
            self._vm.compact_now(dialog.instructions())

    def reset_context(self) -> None:
        """Confirms, then forgets the summary."""
        if confirm_reset(self._parent):
            self._vm.reset_context()

    def show_summary(self, edit: bool) -> None:
        """Reads or edits the compacted summary."""
        state = self._vm.state
        if not state.summary:
            self._snackbar.show_message("This conversation has no summary yet.")
            return
        dialog = SummaryDialog(state.summary, editable=edit, count=state.summarized_count, parent=self._parent)
        if dialog.exec() and edit and dialog.summary().strip() != state.summary.strip():
            self._vm.edit_summary(dialog.summary())

    def show_text(self, title: str, text: str) -> None:
        """A read-only reader for a long text (a tool result's full original)."""
        TextDialog(title, text, self._parent).show()
