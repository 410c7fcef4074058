"""File → Import: choose an export and its kind, import it on the worker with a progress dialog, then report."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QInputDialog, QProgressDialog, QWidget

from ui.backend import ImportProgress, SessionsBackend
from ui.error_text import describe
from ui.signals import emit
from ui.worker import AsyncWorker

KINDS = {"Detect it (any export below, chosen as a file)": "auto",
         "ChatGPT export (conversations.json or .zip)": "chatgpt",
         "Claude export (conversations.json or .zip)": "claude",
         "Palimpsest JSON export": "palimpsest",
         "Open WebUI chat export (.json)": "openwebui",
         "LibreChat conversation export (.json)": "librechat",
         "Chatbox backup (.json)": "chatbox",
         "llm logs database (logs.db)": "llm",
         "LM Studio conversations folder": "lmstudio",
         "Jan data or threads folder": "jan"}
FOLDER_KINDS = frozenset({"lmstudio", "jan"})


class ImportFlow(QObject):
    """Runs one import at a time; `finished` carries the sentence to show, `imported` fires when sessions were added."""

    finished = Signal(str)
    imported = Signal()

    def __init__(self, window: QWidget, backend: SessionsBackend, worker: AsyncWorker) -> None:
        super().__init__(window)
        self._window, self._backend, self._worker = window, backend, worker
        self.dialog: QProgressDialog | None = None

    def start(self) -> None:
        """Asks for the kind and the file, then imports it."""
        label, ok = QInputDialog.getItem(self._window, "Import conversations", "What are you importing?",
                                         list(KINDS), 0, False)
        if not ok:
            return
        if KINDS[label] in FOLDER_KINDS:
            path = QFileDialog.getExistingDirectory(self._window, "Import conversations")
        else:
            path, _ = QFileDialog.getOpenFileName(self._window, "Import conversations", "",
                                                  "Exports (*.json *.zip *.db);;All files (*)")
        if path:
            self.run(KINDS[label], path)

    def run(self, kind: str, path: str) -> None:
        """Imports `path` as `kind` with a progress dialog."""
        dialog = self.dialog = QProgressDialog("Reading the file…", "", 0, 0, self._window)
        dialog.setWindowTitle("Importing conversations")
        dialog.setCancelButton(None)  # all or nothing: a half-stopped import would store nothing anyway
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.show()
        self._worker.stream(lambda: self._backend.import_file(kind, path), self.progress, lambda _c: None,
                            self._failed)

    def progress(self, step: ImportProgress) -> None:
        """Shows one step; the last one closes the dialog and reports."""
        dialog = self.dialog
        if dialog is not None:
            dialog.setMaximum(step.total)
            dialog.setValue(step.done)
            dialog.setLabelText(f"Imported {step.done:,} of {step.total:,} conversations…" if step.total
                                else f"Imported {step.done:,} conversations…")
        if step.finished:
            self._close()
            updated = f"; {step.updated:,} imported before gained new messages" if step.updated else ""
            skipped = f"; {step.skipped:,} were imported before" if step.skipped else ""
            found = f"Found {step.found}. " if step.found else ""
            emit(self.finished, f"{found}Imported {step.imported:,} conversations ({step.messages:,} messages)"
                                f"{updated}{skipped}.")
            if step.imported or step.updated:
                emit(self.imported)

    def _failed(self, error: Exception) -> None:
        self._close()
        emit(self.finished, describe(error))

    def _close(self) -> None:
        if self.dialog is not None:
            self.dialog.close()
            self.dialog = None
