"""The Context menu's "System prompt…": a dialog showing the agent's prompt as the placeholder, saving the
conversation's own prompt through the backend on the worker, and "Use the agent's" going back."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QDialogButtonBox

from tests.ui.test_screenshots import distinct_colors, saved
from tests.ui.window_helpers import open_session, settle, themed_window

SCREENSHOTS = Path(__file__).resolve().parents[2] / "ui" / "screenshots"


def _open_dialog(qtbot, window):
    window.session_prompt.dialog = None
    window.header.prompt_action.trigger()
    qtbot.waitUntil(lambda: window.session_prompt.dialog is not None and window.session_prompt.dialog.isVisible())
    return window.session_prompt.dialog


def test_the_prompt_is_saved_shown_again_and_reset_to_the_agents(qtbot, backend, worker, tmp_path: Path) -> None:
    session = backend.add_session("Trip to Lyon", ["Plan two days in Lyon", "Day one: Vieux Lyon and Fourvière."])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    assert window.header.prompt_action.isEnabled()
    dialog = _open_dialog(qtbot, window)
    assert dialog.edit.placeholderText() == "You are helpful." and dialog.edit.toPlainText() == ""
    assert "General assistant" in dialog.note.text()
    image = saved(window, tmp_path / "window.png")
    painter = QPainter(image)  # the dialog is its own window: drawn over the dimmed main window's centre
    painter.fillRect(image.rect(), QColor(0, 0, 0, 70))
    shot = dialog.grab()
    x, y = (image.width() - shot.width()) // 2, (image.height() - shot.height()) // 3
    painter.drawPixmap(x, y, shot)
    painter.setPen(QColor(120, 120, 140))
    painter.drawRect(x - 1, y - 1, shot.width() + 1, shot.height() + 1)
    painter.end()
    assert distinct_colors(image) > 5
    if SCREENSHOTS.is_dir():
        image.save(str(SCREENSHOTS / "session_prompt.png"))
    dialog.edit.setPlainText("  You answer in French, briefly.\n")
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    qtbot.waitUntil(lambda: backend.sessions[session.id].system_prompt == "You answer in French, briefly.")
    assert ("set_session_prompt", session.id, "You answer in French, briefly.") in backend.calls
    qtbot.waitUntil(lambda: "its own system prompt" in window.snackbar.text())
    assert window.chat_vm.state.session.system_prompt == "You answer in French, briefly."
    assert window.header.prompt_action.text() == "System prompt (this conversation's own)…"

    again = _open_dialog(qtbot, window)
    assert again.edit.toPlainText() == "You answer in French, briefly."
    again.reset_button.click()
    qtbot.waitUntil(lambda: backend.sessions[session.id].system_prompt is None)
    qtbot.waitUntil(lambda: "its agent's system prompt" in window.snackbar.text())
    assert window.header.prompt_action.text() == "System prompt…"


def test_cancel_or_no_change_stores_nothing_and_a_new_chat_has_no_prompt_to_edit(qtbot, backend, worker) -> None:
    session = backend.add_session("Notes", ["hello", "hi"])
    window = themed_window(qtbot, backend, worker)
    assert not window.header.prompt_action.isEnabled()  # nothing stored yet to give a prompt to
    open_session(qtbot, window, session.id)
    dialog = _open_dialog(qtbot, window)
    dialog.edit.setPlainText("Something else")
    dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    dialog = _open_dialog(qtbot, window)
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()  # still empty: the agent's, as before
    settle(qtbot, worker)
    assert not [c for c in backend.calls if c[0] == "set_session_prompt"]


def test_too_long_a_prompt_is_reported_and_nothing_changes(qtbot, backend, worker) -> None:
    session = backend.add_session("Notes", ["hello", "hi"])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    dialog = _open_dialog(qtbot, window)
    dialog.edit.setPlainText("x" * 100_001)
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    qtbot.waitUntil(lambda: "at most 100,000 characters" in window.snackbar.text())
    assert backend.sessions[session.id].system_prompt is None
