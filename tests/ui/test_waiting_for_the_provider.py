"""While the provider is silent the chat shows "Waiting for the provider… N s" under the streaming reply, Stop still
works, and Settings › Compaction shows and saves the three deadlines."""

from __future__ import annotations

from PySide6.QtWidgets import QPushButton

from domain.events import TextDelta, Waiting
from domain.settings import ContextSettings
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.gate import Gate
from tests.ui.test_chat_viewmodel import make_vm, opened
from tests.ui.window_helpers import open_session, themed_window
from ui.state.chat_state import ChatState
from ui.worker import AsyncWorker


def test_the_view_model_reports_the_silence_until_data_arrives(qtbot, backend: FakeChatBackend,
                                                               worker: AsyncWorker) -> None:
    s = backend.add_session("Chat")
    silent = Gate()  # 10 s of silence reported, held until the test has seen it
    backend.scripts.append([Waiting(5), 0.05, Waiting(10), silent, Waiting(0), TextDelta("Hi"), 0.05])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    seen = [vm.state.waiting]

    def changed(state: ChatState) -> None:
        if state.waiting != seen[-1]:
            seen.append(state.waiting)

    vm.state_changed.connect(changed)
    vm.send("Hello?")
    qtbot.waitUntil(lambda: vm.state.waiting == 10)
    silent.open()
    qtbot.waitUntil(lambda: not vm.state.streaming)
    assert seen == [0, 5, 10, 0]


def test_the_window_shows_the_waiting_line_under_the_reply_and_hides_it_when_text_comes(
    qtbot, backend: FakeChatBackend, worker: AsyncWorker
) -> None:
    s = backend.add_session("Chat")
    silent, more = Gate(), Gate()  # held while the waiting line shows, then after the text that hides it
    backend.scripts.append([TextDelta("Thinking it over"), Waiting(15), silent, TextDelta(" — done."), more])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, s.id)
    window.chat_vm.send("Hello?")
    qtbot.waitUntil(lambda: window.waiting_bar.isVisible())
    assert window.waiting_bar.text() == "Waiting for the provider… 15 s"
    assert window.chat_vm.state.streaming
    silent.open()
    qtbot.waitUntil(lambda: not window.waiting_bar.isVisible())
    assert window.chat_vm.state.streaming  # data arrived: the reply goes on, the line is gone
    more.open()
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming)
    assert not window.waiting_bar.isVisible()


def test_stop_while_waiting_ends_the_turn_and_hides_the_line(qtbot, backend: FakeChatBackend,
                                                            worker: AsyncWorker) -> None:
    s = backend.add_session("Chat")
    backend.scripts.append([TextDelta("Part"), Waiting(5), Gate(), TextDelta("never")])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, s.id)
    window.chat_vm.send("Hello?")
    qtbot.waitUntil(lambda: window.waiting_bar.isVisible())
    window.chat_vm.stop()
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming)
    assert not window.waiting_bar.isVisible()
    assert backend.cancelled.is_set()  # the fake stored the partial reply as incomplete


def test_settings_show_and_save_the_deadlines(qtbot, backend: FakeChatBackend, worker: AsyncWorker) -> None:
    window = themed_window(qtbot, backend, worker)
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: window.settings_vm.state.context is not None and not window.settings_vm.state.busy)
    page = dialog.compaction
    defaults = ContextSettings()
    assert (page.headers_timeout.value(), page.idle_timeout.value(), page.round_timeout.value()) == (
        defaults.headers_timeout_s, defaults.idle_timeout_s, defaults.round_timeout_s)
    page.idle_timeout.setValue(600)
    page.round_timeout.setValue(3600)
    next(b for b in page.findChildren(QPushButton) if b.text() == "Save").click()
    qtbot.waitUntil(lambda: window.settings_vm.state.context is not None
                    and window.settings_vm.state.context.idle_timeout_s == 600)
    stored = backend.settings
    assert (stored.headers_timeout_s, stored.idle_timeout_s, stored.round_timeout_s) == (60.0, 600.0, 3600.0)
