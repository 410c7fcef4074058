"""The session menu's export, system prompt and the keyboard-shortcut help: small dialogs the main window opens."""

from __future__ import annotations

import re
from collections.abc import Callable

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.backend import ConversationBackend, SessionPrompt, SessionsBackend
from ui.error_text import describe
from ui.worker import AsyncWorker

SHORTCUTS = (
    ("Ctrl+N", "New chat"),
    ("Ctrl+K", "Search conversations"),
    ("Ctrl+L", "Go to the message box"),
    ("Enter / Shift+Enter", "Send / a new line"),
    ("Up (in an empty message box)", "Edit your last message (sent as a new branch)"),
    ("Esc", "Stop the reply"),
    ("Ctrl+Shift+C", "Copy the last reply"),
    ("Ctrl+B", "Show or hide the sidebar"),
    ("Ctrl+O", "Import conversations (ChatGPT, Claude, Palimpsest JSON)"),
    ("Ctrl+E / Ctrl+Shift+E", "Export the conversation as Markdown / JSON"),
    ("Ctrl+,", "Settings"),
    ("Ctrl+Q", "Quit"),
    ("F1", "This list"),
)


def shortcuts_html() -> str:
    """The shortcut list as a small HTML table."""
    rows = "".join(f"<tr><td><b>{keys}</b></td><td>&nbsp;&nbsp;{what}</td></tr>" for keys, what in SHORTCUTS)
    return f"<table>{rows}</table>"


def show_shortcuts(parent: QWidget) -> QMessageBox:
    """Opens the help overlay listing the keyboard shortcuts (non-modal)."""
    box = QMessageBox(QMessageBox.Icon.NoIcon, "Keyboard shortcuts", shortcuts_html(), QMessageBox.StandardButton.Close,
                      parent)
    box.setModal(False)
    box.show()
    return box


def export_file_name(title: str, fmt: str) -> str:
    """A file name for a session's export: its title, made safe, with the format's extension."""
    stem = re.sub(r"[^\w\- ]+", "", title).strip() or "conversation"
    return f"{stem[:60]}.{'md' if fmt == 'markdown' else 'json'}"


class SessionExport:
    """Asks where to save a session's export, then has the backend write it; reports through `report`."""

    def __init__(self, parent: QWidget, backend: SessionsBackend, worker: AsyncWorker, report: object) -> None:
        self._parent, self._backend, self._worker, self._report = parent, backend, worker, report

    def ask(self, session_id: str, fmt: str, title: str) -> None:
        """Opens the save dialog for the export."""
        kind = "Markdown (*.md)" if fmt == "markdown" else "JSON (*.json)"
        path, _ = QFileDialog.getSaveFileName(self._parent, "Export conversation", export_file_name(title, fmt), kind)
        if path:
            self.run(session_id, fmt, path)

    def run(self, session_id: str, fmt: str, path: str) -> None:
        """Writes the export to `path` on the worker."""
        report = self._report
        assert callable(report)
        self._worker.call(lambda: self._backend.export_session(session_id, fmt, path),
                          lambda _none: report(f"Exported to {path}"), lambda error: report(describe(error)))


class SessionPromptDialog(QDialog):
    """Edits a conversation's own system prompt; empty (or "Use the agent's") means the agent's prompt applies."""

    def __init__(self, prompt: SessionPrompt, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("System prompt")
        self.resize(560, 380)
        agent = prompt.agent_prompt or "(the agent has no system prompt)"
        self.heading = QLabel("<b>System prompt of this conversation</b>", self)
        self.note = QLabel(f"Replaces the prompt of the agent <b>{prompt.agent_name}</b> in this conversation only; "
                           "saved memories are still added after it. Leave it empty to use the agent's.", self)
        self.note.setWordWrap(True)
        self.note.setObjectName("Muted")
        self.edit = QPlainTextEdit(self)
        self.edit.setPlaceholderText(agent)
        self.edit.setPlainText(prompt.own or "")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.reset_button = QPushButton("Use the agent's", self)
        self.reset_button.setToolTip("Clear this conversation's own prompt: the agent's applies again")
        self.buttons.addButton(self.reset_button, QDialogButtonBox.ButtonRole.ResetRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.reset_button.clicked.connect(self._use_agents)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.note)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.buttons)

    def value(self) -> str | None:
        """The prompt to store: the text, or None when it is blank (the agent's applies)."""
        text = self.edit.toPlainText().strip()
        return text or None

    def _use_agents(self) -> None:
        self.edit.clear()
        self.accept()


class SessionPromptFlow:
    """Reads a session's prompt on the worker, opens the editor, hands the result to `save` (the chat view model)."""

    def __init__(self, parent: QWidget, backend: ConversationBackend, worker: AsyncWorker,
                 save: Callable[[str | None], None], report: Callable[[str], None]) -> None:
        self._parent, self._backend, self._worker, self._save, self._report = parent, backend, worker, save, report
        self.dialog: SessionPromptDialog | None = None

    def open(self, session_id: str) -> None:
        """Loads the prompts, then shows the dialog (non-blocking; Save or "Use the agent's" stores)."""
        self._worker.call(lambda: self._backend.session_prompt(session_id), self._show,
                          lambda error: self._report(describe(error)))

    def _show(self, prompt: SessionPrompt) -> None:
        dialog = SessionPromptDialog(prompt, self._parent)
        self.dialog = dialog
        dialog.accepted.connect(lambda: self._stored(prompt, dialog.value()))
        dialog.open()

    def _stored(self, before: SessionPrompt, value: str | None) -> None:
        if value != before.own:
            self._save(value)
