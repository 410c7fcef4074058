"""The main window: keyboard, composer, first run, snackbar with Undo, summary dialogs (offscreen)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from domain.events import TextDelta
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.window_helpers import demo_sessions, open_session, settle, themed_window
from ui.signals import emit


def test_enter_sends_and_shift_enter_adds_a_line(qtbot, backend, worker) -> None:
    window = themed_window(qtbot, backend, worker)
    edit = window.composer.edit
    edit.setFocus()
    qtbot.keyClicks(edit, "first line")
    qtbot.keyClick(edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(edit, "second line")
    assert edit.toPlainText() == "first line\nsecond line"
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: any(c[0] == "send" for c in backend.calls))
    assert backend.calls[-1][2] == "first line\nsecond line"
    assert edit.toPlainText() == ""


def test_the_composer_stays_editable_while_a_reply_streams_and_escape_stops_it(qtbot, backend, worker) -> None:
    sid = demo_sessions(backend)
    backend.scripts.append([TextDelta("Thinking about it"), 10.0])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    window.chat_vm.send("Go")
    qtbot.waitUntil(lambda: window.chat_vm.state.streaming)
    assert not window.composer.edit.isReadOnly() and window.composer.button.text() == "Stop"
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming)
    assert not window.composer.edit.isReadOnly() and window.composer.button.text() == "Send"


def test_ctrl_shift_c_copies_the_last_reply(qtbot, backend, worker) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    qtbot.keyClick(window, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert QGuiApplication.clipboard().text().startswith("Here is a small function")


def test_ctrl_n_starts_a_new_chat_and_ctrl_k_focuses_search(qtbot, backend, worker) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.chat_vm.state.session is None)
    assert window.chat_stack.currentWidget() is window.empty_hint
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.sidebar.search)
    qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.composer.edit)


def test_first_run_panel_replaces_the_chat_until_a_key_exists(qtbot, worker) -> None:
    window = themed_window(qtbot, FakeChatBackend(keychain_problem="keyring found no usable backend."), worker)
    assert window.pages.currentWidget() is window.first_run
    assert window.first_run.keychain_warning.isVisibleTo(window)
    assert "keyring found no usable backend" in window.first_run.keychain_warning.text()
    emit(window.first_run.dismissed)
    assert window.pages.currentWidget() is not window.first_run


def test_without_a_key_existing_conversations_stay_readable_instead_of_the_first_run_panel(qtbot, worker) -> None:
    backend = FakeChatBackend()
    demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    startup = window.app_vm.state.startup
    assert startup is not None and not startup.any_key and startup.has_sessions
    assert window.pages.currentWidget() is not window.first_run
    assert not window.app_vm.state.first_run


def test_deleting_a_session_offers_undo_in_the_snackbar(qtbot, backend, worker) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    window.sessions_vm.delete(sid)
    qtbot.waitUntil(lambda: window.snackbar.isVisible())
    assert "Deleted" in window.snackbar.text() and window.snackbar.button.text() == "Undo"
    window.snackbar.button.click()
    qtbot.waitUntil(lambda: any(s.id == sid for s in window.sessions_vm.state.sessions))


def test_the_gauge_tooltip_breaks_the_context_down(qtbot, backend, worker) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    tip = window.header.gauge.toolTip()
    for part in ("System prompt: 900", "Summary: 0", "Messages: 9,000", "Tool results: 2,000",
                 "Tool definitions: 500", "Cost: $0.2100"):
        assert part in tip


def test_clicking_a_tool_row_expands_it(qtbot, backend, worker) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    view = window.chat_view
    row = next(i for i, r in enumerate(window.chat_vm.model.rows()) if r.kind.value == "tool")
    rect = view.visualRect(window.chat_vm.model.index(row))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.left() + 60, rect.top() + 20))
    qtbot.waitUntil(lambda: window.chat_vm.model.is_expanded(window.chat_vm.model.rows()[row].key))


def test_a_system_theme_change_repaints_the_chat_in_the_new_colors(qtbot, backend, worker) -> None:
    from PySide6.QtGui import QColor

    from app.gui.application import apply_theme
    from ui.theme import DARK, LIGHT

    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    apply_theme(QApplication.instance(), window, DARK)  # what a colorSchemeChanged signal does
    settle(qtbot, worker)
    image = window.chat_view.viewport().grab().toImage()
    assert image.pixelColor(image.width() - 8, image.height() - 8) == QColor(DARK.window)
    assert window.chat_view.delegate._theme is DARK
    apply_theme(QApplication.instance(), window, LIGHT)


def test_the_chat_opens_at_the_newest_message_and_loads_older_ones_when_scrolled_up(qtbot, backend, worker) -> None:
    s = backend.add_session("Long", [f"message number {i}" for i in range(400)])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, s.id)
    bar = window.chat_view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    loaded = window.chat_vm.model.rowCount()
    bar.setValue(0)
    qtbot.waitUntil(lambda: window.chat_vm.model.rowCount() > loaded)
    qtbot.waitUntil(lambda: bar.value() > 0)  # the view keeps its place instead of jumping to the new top


def test_the_sidebar_says_when_there_is_nothing_to_list(qtbot, backend, worker) -> None:
    window = themed_window(qtbot, backend, worker)
    assert window.sidebar.empty.isVisibleTo(window)
    assert "No conversations yet" in window.sidebar.empty.text()
    demo_sessions(backend)
    window.sessions_vm.refresh()
    qtbot.waitUntil(lambda: not window.sidebar.empty.isVisibleTo(window))
    window.sessions_vm.search("zebra")
    qtbot.waitUntil(lambda: window.sidebar.empty.isVisibleTo(window))
    assert window.sidebar.empty.text() == "No conversation mentions “zebra”."
