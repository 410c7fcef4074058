"""The window under a search hit far back: scrolling to the bottom of the window reads the next newer page, the
"Jump to latest" button goes to the newest message, and a message sent from the window follows the newest message
(screenshot search_hit_jump_latest.png)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSlider

from domain.events import TextDelta
from domain.ports import SessionSearchHit
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.gate import Gate
from tests.ui.test_screenshots import distinct_colors, saved
from tests.ui.test_search_hit_window import keep, on_screen
from tests.ui.window_helpers import demo_sessions, migration_log, settle, themed_window
from ui.models.chat_rows import RowKind
from ui.viewmodels.chat_paging import PAGE
from ui.widgets.main_window import MainWindow

LONG = 600


def opened_far_back(qtbot, worker) -> tuple[FakeChatBackend, MainWindow, str, str]:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    demo_sessions(backend)
    session_id, hit = migration_log(backend, LONG // 2, 50)
    window = themed_window(qtbot, backend, worker)
    window.sessions_vm.open_hit(SessionSearchHit(session_id, "Staging migration log", "", message_id=hit))
    qtbot.waitUntil(lambda: window.chat_view.delegate.highlighted == hit)
    settle(qtbot, worker)
    return backend, window, session_id, hit


def test_scrolling_to_the_bottom_of_a_window_loads_the_newer_page(qtbot, worker, artifacts) -> None:
    backend, window, sid, hit = opened_far_back(qtbot, worker)
    view, vm = window.chat_view, window.chat_vm
    assert on_screen(view, hit) and vm.state.has_newer
    assert not [c for c in backend.calls if c[0] == "load_newer"]  # opening does not page on by itself
    assert view.jump.isVisible()
    jump = view.jump.geometry()
    assert view.viewport().geometry().contains(jump) and jump.bottom() > view.height() * 0.8  # over its bottom right
    assert distinct_colors(saved(window, artifacts / "search_hit_jump_latest.png")) > 5
    keep(artifacts / "search_hit_jump_latest.png")
    shown = len(vm.model.rows())
    view.verticalScrollBar().triggerAction(QAbstractSlider.SliderAction.SliderToMaximum)  # the user scrolls down
    qtbot.waitUntil(lambda: len(vm.model.rows()) > shown)
    assert [c[0] for c in backend.calls].count("load_newer") == 1
    newest_in_window = backend.messages[sid][100 - PAGE // 2 + PAGE - 1].id
    settle(qtbot, worker)
    assert on_screen(view, newest_in_window)  # appended below: what the user was reading stays in place
    while vm.state.has_newer:  # on down to the end of the conversation
        count = len(vm.model.rows())
        view.verticalScrollBar().triggerAction(QAbstractSlider.SliderAction.SliderToMaximum)
        qtbot.waitUntil(lambda: len(vm.model.rows()) > count)  # noqa: B023
    qtbot.waitUntil(lambda: not view.jump.isVisible())
    view.verticalScrollBar().triggerAction(QAbstractSlider.SliderAction.SliderToMaximum)
    qtbot.waitUntil(lambda: on_screen(view, backend.messages[sid][-1].id))


def scrolled_down_a_page(qtbot, window: MainWindow) -> None:
    """The user scrolls to the bottom of the window (letting the hit go): the next newer page is appended."""
    rows = window.chat_vm.model.rowCount()
    window.chat_view.verticalScrollBar().triggerAction(QAbstractSlider.SliderAction.SliderToMaximum)
    qtbot.waitUntil(lambda: window.chat_vm.model.rowCount() > rows)
    settle(qtbot, window.worker, window.chat_view)
    assert window.chat_vm.state.has_newer and window.chat_view._focused is None


def test_jump_to_latest_shows_the_newest_message(qtbot, worker) -> None:
    backend, window, sid, hit = opened_far_back(qtbot, worker)
    view = window.chat_view
    scrolled_down_a_page(qtbot, window)
    qtbot.mouseClick(view.jump, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.chat_vm.state.has_newer)
    qtbot.waitUntil(lambda: on_screen(view, backend.messages[sid][-1].id))
    assert not view.jump.isVisible() and not on_screen(view, hit)
    assert window.header.isVisible() and window.chat_vm.state.message_count == LONG


def test_sending_from_a_window_shows_the_turn_after_the_newest_message(qtbot, worker) -> None:
    backend, window, sid, hit = opened_far_back(qtbot, worker)
    view, vm = window.chat_view, window.chat_vm
    newest = backend.messages[sid][-1].id
    scrolled_down_a_page(qtbot, window)
    gate = Gate()
    backend.scripts.append([TextDelta("Port "), gate, TextDelta("8443.")])  # held mid-reply until it is looked at
    window.composer.edit.setPlainText("and the proxy's port?")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: vm.state.streaming and vm.model.rows()[-1].text.startswith("Port"))
    rows = vm.model.rows()
    at = next(i for i, r in enumerate(rows) if r.message_id == newest)
    assert rows[at + 1].kind is RowKind.USER and rows[at + 1].text == "and the proxy's port?"
    settle(qtbot, worker)
    bar = view.verticalScrollBar()
    assert bar.value() >= bar.maximum() - 40 and not on_screen(view, hit)  # the reply is followed, at the newest
    assert not view.jump.isVisible()
    gate.open()
    qtbot.waitUntil(lambda: not vm.state.streaming)
