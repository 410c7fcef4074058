"""The composer's box and the state's draft stay one (issue 26): typing reaches the state without moving the cursor,
Esc on an edit puts back what was typed before it, the draft is kept across conversations, a send empties both."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.ui.window_helpers import open_session, settle, themed_window


def test_what_is_typed_is_the_states_draft_and_typing_mid_text_keeps_the_cursor(qtbot, backend, worker) -> None:
    session = backend.add_session("Trip", ["Plan four days in Lisbon", "Day 1: Alfama and the castle…"])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    edit = window.composer.edit
    edit.setFocus()
    qtbot.keyClicks(edit, "Hello world")
    assert window.chat_vm.state.draft == "Hello world"
    cursor = edit.textCursor()
    cursor.setPosition(5)
    edit.setTextCursor(cursor)
    qtbot.keyClicks(edit, ",")
    assert window.chat_vm.state.draft == edit.toPlainText() == "Hello, world"
    assert edit.textCursor().position() == 6  # the state coming back equal did not reset the box or its cursor


def test_esc_on_an_edit_puts_back_the_draft_typed_before_it(qtbot, backend, worker) -> None:
    session = backend.add_session("Trip", ["Plan four days in Lisbon", "Day 1: Alfama and the castle…"])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    edit = window.composer.edit
    edit.setFocus()
    qtbot.keyClicks(edit, "half a thought")
    assert window.chat_vm.edit_last()  # the row's Edit action: the message to edit takes the box
    qtbot.waitUntil(lambda: edit.toPlainText() == "Plan four days in Lisbon")
    assert window.composer.edit_bar.isVisible() and window.chat_vm.state.draft == "Plan four days in Lisbon"
    qtbot.keyClick(edit, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.composer.edit_bar.isVisible())
    assert edit.toPlainText() == window.chat_vm.state.draft == "half a thought"
    assert edit.textCursor().position() == len("half a thought")


def test_the_draft_stays_while_another_conversation_opens_and_after_coming_back(qtbot, backend, worker) -> None:
    trip = backend.add_session("Trip", ["Plan four days in Lisbon", "Day 1: Alfama and the castle…"])
    other = backend.add_session("Other", ["Hi", "Hello!"])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, trip.id)
    window.composer.edit.setFocus()
    qtbot.keyClicks(window.composer.edit, "and on day 5?")
    open_session(qtbot, window, other.id)
    open_session(qtbot, window, trip.id)
    assert window.chat_vm.state.draft == window.composer.edit.toPlainText() == "and on day 5?"


def test_a_sent_message_empties_the_draft_and_the_box(qtbot, backend, worker) -> None:
    session = backend.add_session("Trip", ["Plan four days in Lisbon", "Day 1: Alfama and the castle…"])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    edit = window.composer.edit
    edit.setFocus()
    qtbot.keyClicks(edit, "and on day 5?")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: any(call[0] == "send" for call in backend.calls))
    assert window.chat_vm.state.draft == edit.toPlainText() == ""
    settle(qtbot, worker)
