"""The session menu's export and the keyboard-shortcut help: small dialogs the main window opens."""

from __future__ import annotations

import re

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from ui.backend import SessionsBackend
from ui.viewmodels.wording import describe
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
