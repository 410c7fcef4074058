"""Issue 26, item 1: edit mode is visible (an edit bar above the composer for as long as it lasts) and cancellable
(Esc and the bar's ×); a question typed after cancelling is sent as a new message, not as a new version."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from tests.ui.fake_backend import FakeChatBackend
from tests.ui.gate import Gate
from tests.ui.window_helpers import open_session, themed_window
from ui.widgets.composer import EDIT_BAR_TEXT
from ui.widgets.main_window import MainWindow
from ui.worker import AsyncWorker


def editing_window(qtbot, backend: FakeChatBackend, worker: AsyncWorker) -> MainWindow:
    """A window with a conversation open and its last message being edited (Up in the empty composer)."""
    session = backend.add_session("Trip", ["Plan four days in Lisbon", "Day 1: Alfama and the castle…"])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    window.composer.edit.setFocus()
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Up)
    qtbot.waitUntil(lambda: window.chat_vm.state.editing is not None)
    return window


def test_up_shows_the_edit_bar_for_as_long_as_the_edit_lasts_and_esc_cancels_it(
        qtbot, backend, worker, artifacts: Path) -> None:
    window = editing_window(qtbot, backend, worker)
    bar = window.composer.edit_bar
    assert bar.isVisible() and bar.label.text() == EDIT_BAR_TEXT == "Editing your message · Esc to cancel"
    assert window.composer.edit.toPlainText() == "Plan four days in Lisbon"
    window.grab().save(str(artifacts / "edit_bar.png"))
    window.composer.edit.clear()
    qtbot.keyClicks(window.composer.edit, "Something else")
    assert bar.isVisible()  # clearing the box and typing does not end the edit silently
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not bar.isVisible())
    assert window.chat_vm.state.editing is None
    assert window.composer.edit.toPlainText() == "Something else"  # typed after the edit began: kept
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: any(call[0] == "send" for call in backend.calls))
    assert next(c for c in backend.calls if c[0] == "send")[2] == "Something else"  # a new message, not an edit


def test_the_bars_x_cancels_the_edit_and_takes_the_untouched_old_text_away(qtbot, backend, worker) -> None:
    window = editing_window(qtbot, backend, worker)
    bar = window.composer.edit_bar
    qtbot.mouseClick(bar.close_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not bar.isVisible())
    assert window.chat_vm.state.editing is None
    assert window.composer.edit.toPlainText() == ""  # nothing of the edit left to be sent by mistake
    assert window.composer.button.text() == "Send"


def test_esc_while_a_reply_streams_and_no_edit_runs_stops_the_reply_and_says_so_until_it_has(
        qtbot, backend, worker) -> None:
    from domain.events import TextDelta

    session = backend.add_session("Trip", ["Plan four days in Lisbon", "Day 1"])
    backend.scripts.append([TextDelta("Thinking"), Gate()])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    window.chat_vm.send("Go")
    qtbot.waitUntil(lambda: window.chat_vm.state.streaming)
    assert not window.composer.edit_bar.isVisible()
    backend.cancel_gate = wound_down = Gate()  # the stopped stream winds down (its partial reply is stored) later
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    button = window.composer.button
    qtbot.waitUntil(lambda: button.text() == "Stopping…" and not button.isEnabled())  # pressed: said at once
    wound_down.open()
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming)
    assert button.text() == "Send"
