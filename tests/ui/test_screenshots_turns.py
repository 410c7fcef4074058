"""Screenshots of issue 13's states, rendered offscreen from the real widgets into tests/_artifacts/: a message queued
while a reply streams, a stopped reply kept on screen, a failed message marked "Not answered — Retry"."""

from __future__ import annotations

from domain.errors import AuthenticationFailed
from domain.events import ChatError, TextDelta
from tests.ui.gate import Gate
from tests.ui.test_screenshots import distinct_colors, saved
from tests.ui.window_helpers import REPLY, demo_sessions, open_session, settle, themed_window
from ui.models.chat_rows import RowKind


def test_queued_message_screenshot(qtbot, backend, worker, artifacts) -> None:
    sid = demo_sessions(backend)
    backend.scripts.append([TextDelta(REPLY[:300]), 10.0])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    window.chat_vm.send("Can you make the backoff jittered?")
    qtbot.waitUntil(lambda: any(r.streaming and len(r.text) > 200 for r in window.chat_vm.model.rows()))
    window.composer.edit.setPlainText("And cap it at 30 seconds, please.")
    window._send(window.composer.edit.toPlainText())
    window.composer.edit.setPlainText("Also log each retry")
    settle(qtbot, worker)
    assert window.composer.queued.isVisible() and window.composer.button.text() == "Stop"
    assert distinct_colors(saved(window, artifacts / "queued.png")) > 5
    window.chat_vm.cancel_queued()
    window.chat_vm.stop()
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming)


def test_stopped_reply_screenshot(qtbot, backend, worker, artifacts) -> None:
    sid = demo_sessions(backend)
    backend.scripts.append([TextDelta(REPLY[:250]), Gate()])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    window.chat_vm.send("Show me the helper again")
    qtbot.waitUntil(lambda: any(r.streaming and len(r.text) > 200 for r in window.chat_vm.model.rows()))
    window.chat_vm.stop()
    qtbot.waitUntil(lambda: any(r.incomplete and r.message_id for r in window.chat_vm.model.rows()))
    settle(qtbot, worker)
    assert distinct_colors(saved(window, artifacts / "stopped.png")) > 5


def test_not_answered_screenshot(qtbot, backend, worker, artifacts) -> None:
    sid = demo_sessions(backend)
    missing = AuthenticationFailed("Anthropic", missing=True)
    backend.scripts.append([ChatError("authentication", missing.message, error=missing)])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    window.chat_vm.send("Is the incident resolved?")
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming and window.chat_vm.model.rows()[-1].kind
                    is RowKind.ERROR and window.chat_vm.model.rows()[-2].message_id is not None)
    settle(qtbot, worker)
    assert window.chat_vm.model.rows()[-2].unanswered
    assert distinct_colors(saved(window, artifacts / "not_answered.png")) > 5
