"""A paste too long for a message: kept out of the box; the notice names the model's window, attaches it as a file."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt

from tests.ui.window_helpers import demo_sessions, open_session, themed_window
from ui.widgets.composer import PASTE_LIMIT
from ui.widgets.paste_flow import PASTED_TEXT_NAME, oversized_notice

TWO_MB = ("2024-05-01 12:00:00 INFO request served in 12 ms\n" * 45_000)[:2_000_000]


def test_the_notice_names_the_limit_and_the_models_window() -> None:
    assert oversized_notice(2_000_000, "Claude Sonnet 4.5", 200_000) == (
        "This paste is 2,000,000 characters: a message holds at most 1,000,000, and the context window of "
        "Claude Sonnet 4.5 is 200,000 tokens. Attach it as a text file instead?")


def test_a_two_megabyte_paste_is_offered_as_a_file_and_attached(qtbot, backend, worker) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    edit = window.composer.edit
    edit.setPlainText("Please summarise this log:")
    mime = QMimeData()
    mime.setText(TWO_MB)
    assert len(TWO_MB) > PASTE_LIMIT
    edit.insertFromMimeData(mime)
    assert edit.toPlainText() == "Please summarise this log:"  # the box keeps what was typed, no 2 MB in it
    choice = window.chat_vm.state.selected_choice
    assert choice is not None and choice.window
    notice = window.snackbar.text()
    assert f"{choice.window:,} tokens" in notice and choice.label in notice and "2,000,000 characters" in notice
    button = window.snackbar.button
    assert button.isVisible() and button.text() == "Attach as a file"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.chat_vm.state.attaching and len(window.chat_vm.state.pending) == 1)
    attached = window.chat_vm.state.pending[0].attachment
    assert attached.name == PASTED_TEXT_NAME and attached.size == len(TWO_MB.encode())
