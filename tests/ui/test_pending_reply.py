"""Issue 26, item 7: a sign of work at once after Send: the pending reply (a typing indicator row) shows in the same
event-loop turn as the message, not only after a silence; the first text fills that same row."""

from __future__ import annotations

from domain.events import TextDelta
from tests.ui.gate import Gate
from tests.ui.test_chat_viewmodel import make_vm, opened
from tests.ui.window_helpers import open_session, themed_window
from ui.models.chat_rows import RowKind


def test_the_pending_reply_shows_at_once_and_the_first_text_fills_it(qtbot, backend, worker) -> None:
    session = backend.add_session("Chat", ["Hi", "Hello"])
    silence, after = Gate(), Gate()  # silence before the reply, and after it, for as long as the test looks
    backend.scripts.append([silence, TextDelta("Sure"), after])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, session.id)
    assert vm.send("Plan a trip")
    rows = vm.model.rows()  # no event loop has run since Send
    assert [r.kind for r in rows[-2:]] == [RowKind.USER, RowKind.ASSISTANT]
    pending = rows[-1]
    assert pending.streaming and pending.text == "" and pending.message_id is None
    assert vm.state.message_count == 3  # the pending reply is not a message yet
    silence.open()
    qtbot.waitUntil(lambda: vm.model.rows()[-1].text == "Sure", timeout=5000)
    assert vm.model.rows()[-1].key == pending.key  # the same row: no flicker from one row to another
    after.open()
    qtbot.waitUntil(lambda: not vm.state.streaming and not vm.state.reading_back, timeout=5000)
    assert [r.kind for r in vm.model.rows()] == [RowKind.USER, RowKind.ASSISTANT] * 2


def test_a_reply_stopped_before_any_text_leaves_no_pending_row(qtbot, backend, worker) -> None:
    session = backend.add_session("Chat", ["Hi", "Hello"])
    backend.scripts.append([Gate(), TextDelta("never")])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, session.id)
    vm.send("Plan a trip")
    assert vm.model.rows()[-1].streaming
    vm.stop()
    qtbot.waitUntil(lambda: not vm.state.streaming and not vm.state.reading_back, timeout=5000)
    assert not any(r.streaming for r in vm.model.rows())


def test_the_window_paints_the_pending_reply_in_view_right_after_send(qtbot, backend, worker, artifacts) -> None:
    session = backend.add_session("Chat", ["Hi", "Hello"])
    silence = Gate()
    backend.scripts.append([silence, TextDelta("Sure")])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    window.chat_vm.send("Plan a trip")
    view, model = window.chat_view, window.chat_vm.model
    last = model.index(model.rowCount() - 1)
    assert model.row_at(last.row()) is not None and model.row_at(last.row()).streaming  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: view.viewport().rect().intersects(view.visualRect(last)), timeout=2000)
    assert window.chat_vm.state.streaming and window.composer.button.text() == "Stop"
    window.grab().save(str(artifacts / "pending_reply.png"))
    silence.open()
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming)
