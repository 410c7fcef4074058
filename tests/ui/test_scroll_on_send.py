"""Issue 26, item 2: a send while scrolled up scrolls to the new message; new messages arriving below a view scrolled
up show the "Jump to latest" button with their count, and the button goes to the end."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from domain.events import TextDelta, ToolCallStarted, ToolResultStored
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.gate import Gate
from tests.ui.window_helpers import open_session, themed_window
from ui.widgets.jump_latest import jump_label
from ui.widgets.main_window import MainWindow
from ui.worker import AsyncWorker


def long_window(qtbot, backend: FakeChatBackend, worker: AsyncWorker) -> MainWindow:
    """A window showing a 100-message conversation (one page), scrolled to its top."""
    texts: list[str] = []
    for i in range(50):
        texts += [f"Question {i}: what about step {i}?", f"Step {i} is fine.\n\nNothing else to add about it."]
    session = backend.add_session("Long", texts)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    bar = window.chat_view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 2000)
    bar.setValue(0)
    qtbot.waitUntil(lambda: bar.value() == 0)
    return window


def at_bottom(window: MainWindow) -> bool:
    bar = window.chat_view.verticalScrollBar()
    return bar.maximum() > 0 and bar.value() == bar.maximum()


def test_a_send_while_scrolled_up_shows_the_new_message(qtbot, backend, worker) -> None:
    backend.scripts.append([0.5, TextDelta("Sure."), 0.5])
    window = long_window(qtbot, backend, worker)
    qtbot.keyClicks(window.composer.edit, "And the last step?")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    view, model = window.chat_view, window.chat_vm.model
    qtbot.waitUntil(lambda: at_bottom(window), timeout=3000)
    sent = next(i for i, r in enumerate(model.rows()) if r.text == "And the last step?")
    assert view.viewport().rect().intersects(view.visualRect(model.index(sent)))
    assert not view.jump.isVisible()


def test_new_messages_below_a_view_scrolled_up_show_the_jump_button_with_their_count(
        qtbot, backend, worker, artifacts: Path) -> None:
    looking, found = Gate(), Gate()  # held after the first words, then after the last, while the test scrolls
    backend.scripts.append([
        TextDelta("Let me look."), looking,
        ToolCallStarted("c1", "http_request", {"url": "https://example.com"}), 0.05,
        ToolResultStored("c1", "http_request", 300, False, False, "r1"), 0.05, TextDelta("Found it."), found,
    ])
    window = long_window(qtbot, backend, worker)
    window.chat_vm.send("Check the status page")
    view, bar = window.chat_view, window.chat_view.verticalScrollBar()
    qtbot.waitUntil(lambda: at_bottom(window) and window.chat_vm.model.rows()[-1].text == "Let me look.",
                    timeout=3000)
    assert not view.jump.isVisible()
    bar.setValue(0)  # the user scrolls up to reread something while the reply goes on
    looking.open()
    qtbot.waitUntil(lambda: view.jump.isVisible(), timeout=3000)  # the tool call arrived below
    qtbot.waitUntil(lambda: view.jump.unseen == 3, timeout=3000)  # the tool call, its result and the reply after it
    assert window.chat_vm.state.streaming
    assert view.jump.isVisible() and view.jump.text() == jump_label(3) == "Jump to latest · 3 new messages  ↓"
    assert bar.value() < 200  # the view stayed where the user was reading
    window.grab().save(str(artifacts / "jump_to_latest_count.png"))
    qtbot.mouseClick(view.jump, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: at_bottom(window) and not view.jump.isVisible())
    assert view.jump.text() == jump_label(0)
    assert window.chat_vm.model.rows()[-1].text == "Found it."
    found.open()
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming and not window.chat_vm.state.reading_back,
                    timeout=6000)
    assert at_bottom(window) and not view.jump.isVisible()  # at the end, the read-back is followed


def test_older_pages_paging_in_above_are_not_counted_as_new(qtbot, backend, worker) -> None:
    window = long_window(qtbot, backend, worker)
    window.chat_vm.load_older()  # nothing older (one page): the count must not move either way
    assert window.chat_view.jump.unseen == 0 and not window.chat_view.jump.isVisible()
