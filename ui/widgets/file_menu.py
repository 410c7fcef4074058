"""The File menu's own entries: export the open conversation (Markdown, JSON), Settings and Quit, with shortcuts."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from ui.viewmodels.chat import ChatViewModel
from ui.widgets.session_menu import SessionExport


class FileMenu:
    """Adds Export, Settings and Quit to the File menu (after Import) and runs them."""

    def __init__(self, menu: QMenu, chat: ChatViewModel, export: SessionExport, settings: Callable[[], object],
                 quit_app: Callable[[], object], report: Callable[[str], object]) -> None:
        self._chat, self._export, self._report = chat, export, report
        self.export_markdown = menu.addAction("&Export conversation as Markdown…", QKeySequence("Ctrl+E"),
                                              lambda: self.export_current("markdown"))
        self.export_json = menu.addAction("Export conversation as &JSON…", QKeySequence("Ctrl+Shift+E"),
                                          lambda: self.export_current("json"))
        menu.addSeparator()
        self.settings: QAction = menu.addAction("&Settings…", settings)
        self.settings.setShortcuts(standard_keys(QKeySequence.StandardKey.Preferences, "Ctrl+,"))
        menu.addSeparator()
        self.quit: QAction = menu.addAction("&Quit", quit_app)
        self.quit.setShortcuts(standard_keys(QKeySequence.StandardKey.Quit, "Ctrl+Q"))
        self.quit.setMenuRole(QAction.MenuRole.QuitRole)
        menu.aboutToShow.connect(self._shown)

    def _shown(self) -> None:
        """Export needs an open conversation."""
        shown = self._chat.state.session is not None
        self.export_markdown.setEnabled(shown)
        self.export_json.setEnabled(shown)

    def export_current(self, fmt: str) -> None:
        """Exports the open conversation ("markdown" or "json"), asking where to save it."""
        session = self._chat.state.session
        if session is None:
            self._report("Open a conversation to export it.")
            return
        self._export.ask(session.id, fmt, session.title)


def standard_keys(key: QKeySequence.StandardKey, fallback: str) -> list[QKeySequence]:
    """The platform's shortcuts for a standard action, or the usual one where the platform has none."""
    return QKeySequence.keyBindings(key) or [QKeySequence(fallback)]
