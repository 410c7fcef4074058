"""File menu: Import, Export (Markdown, JSON), Settings and Quit, each with its shortcut."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFileDialog

from tests.ui.fake_backend import FakeChatBackend
from tests.ui.window_helpers import open_session, themed_window


def _file_menu(window):
    action = next(a for a in window.menuBar().actions() if a.text() == "&File")
    return action.menu()


def _keys(action) -> str:
    return action.shortcut().toString(QKeySequence.SequenceFormat.PortableText)


def test_the_file_menu_offers_import_export_settings_and_quit_with_shortcuts(qtbot, worker) -> None:
    window = themed_window(qtbot, FakeChatBackend(keys={"anthropic": "sk"}), worker)
    items = {a.text(): _keys(a) for a in _file_menu(window).actions() if not a.isSeparator()}
    assert items == {"&Import conversations…": "Ctrl+O", "&Export conversation as Markdown…": "Ctrl+E",
                     "Export conversation as &JSON…": "Ctrl+Shift+E", "&Settings…": "Ctrl+,", "&Quit": "Ctrl+Q"}


def test_ctrl_comma_opens_settings_and_ctrl_q_quits(qtbot, worker) -> None:
    window = themed_window(qtbot, FakeChatBackend(keys={"anthropic": "sk"}), worker)
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.settings_dialog is not None and window.settings_dialog.isVisible())
    window.settings_dialog.close()
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not window.isVisible())


def test_export_writes_the_open_conversation_where_the_user_chose(qtbot, worker, monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk"})
    session = backend.add_session("Harbour: boats?", ["How many boats?", "Seven."], minutes_ago=1)
    window = themed_window(qtbot, backend, worker)
    asked: list[str] = []

    def choose(_parent, _title, name, _kind):
        asked.append(name)
        return str(tmp_path / name), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(choose))
    written: list[tuple[str, str, str]] = []
    monkeypatch.setattr(window.session_export, "run", lambda sid, fmt, path: written.append((sid, fmt, path)))
    window.file_menu.export_markdown.trigger()  # nothing open yet: said so, nothing asked
    assert asked == [] and window.snackbar.text() == "Open a conversation to export it."
    open_session(qtbot, window, session.id)
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    window.file_menu.export_json.trigger()
    assert asked == ["Harbour boats.md", "Harbour boats.json"]
    assert written == [(session.id, "markdown", str(tmp_path / "Harbour boats.md")),
                       (session.id, "json", str(tmp_path / "Harbour boats.json"))]
