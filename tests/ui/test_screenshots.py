"""Renders the main window in its key states to PNGs under tests/_artifacts/ (looked at by a person)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QColor, QImage

from domain.events import CompactStarted, TextDelta, ToolCallStarted
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.window_helpers import REPLY, demo_sessions, open_session, settle, themed_window


def saved(widget, path: Path) -> QImage:
    assert widget.grab().save(str(path))
    image = QImage(str(path))
    assert image.width() >= 800 and image.height() >= 600
    return image


def distinct_colors(image: QImage) -> int:
    return len({image.pixel(x, y) for x in range(0, image.width(), 23) for y in range(0, image.height(), 19)})


def test_first_run_screenshot(qtbot, worker, artifacts) -> None:
    window = themed_window(qtbot, FakeChatBackend(), worker)
    assert window.pages.currentWidget() is window.first_run
    assert distinct_colors(saved(window, artifacts / "first_run.png")) > 5


def test_conversation_with_code_and_a_tool_call_screenshot(qtbot, backend, worker, artifacts) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    model = window.chat_vm.model
    tool = next(r for r in model.rows() if r.kind.value == "tool")
    row = model.rows().index(tool)
    collapsed = window.chat_view.visualRect(model.index(row)).height()
    model.toggle_expanded(tool.key)
    settle(qtbot, worker)
    assert model.is_expanded(tool.key)
    assert window.chat_view.visualRect(model.index(row)).height() > collapsed + 40  # the output is drawn open
    assert distinct_colors(saved(window, artifacts / "conversation_tool_call.png")) > 5


def test_streaming_screenshot(qtbot, backend, worker, artifacts) -> None:
    sid = demo_sessions(backend)
    backend.scripts.append([
        ToolCallStarted("c9", "search_memory", {"query": "billing API timeout"}), 0.05,
        TextDelta(REPLY[:260]), 10.0,
    ])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    window.chat_vm.send("Can you make the backoff jittered, and cap it at 30 seconds?")
    qtbot.waitUntil(lambda: any(r.streaming and len(r.text) > 200 for r in window.chat_vm.model.rows()))
    settle(qtbot, worker)
    saved(window, artifacts / "streaming.png")
    window.chat_vm.stop()
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming)


def test_after_compaction_screenshot_shows_the_divider(qtbot, backend, worker, artifacts) -> None:
    sid = demo_sessions(backend)
    for i in range(4):
        backend.add_tool_round(sid, "http_request", f'{{"url": "https://api.example/page/{i}"}}', "{}" * 900)
    backend._store(sid, backend.messages[sid][0].type, "Now add jitter and a 30 s cap, please.")
    backend._store(sid, backend.messages[sid][1].type, "Done — `with_retries` now sleeps `min(30, base * 2**n) "
                   "* random.uniform(0.5, 1.5)`.")
    backend.compact(sid, 2, "## Goal\nA retry helper for the nightly billing sync.")
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    assert window.chat_vm.model.rows()[0].kind.value == "divider"
    saved(window, artifacts / "after_compaction.png")
    window.chat_vm.set_show_originals(True)
    settle(qtbot, worker)
    window.chat_view.scrollToTop()
    settle(qtbot, worker)
    saved(window, artifacts / "originals_shown.png")


def test_compacting_indicator_screenshot(qtbot, backend, worker, artifacts) -> None:
    sid = demo_sessions(backend)
    backend.scripts.append([TextDelta("Sure."), CompactStarted(), 10.0])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    window.chat_vm.send("Thanks!")
    qtbot.waitUntil(lambda: window.chat_vm.state.compacting)
    settle(qtbot, worker)
    assert window.compacting_bar.isVisible()
    saved(window, artifacts / "compacting.png")
    window.chat_vm.stop()
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming)


def test_settings_screenshot(qtbot, backend, worker, artifacts) -> None:
    window = themed_window(qtbot, backend, worker)
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: window.settings_vm.state.context is not None and not window.settings_vm.state.busy)
    window.settings_vm.test_connection("anthropic")
    qtbot.waitUntil(lambda: "anthropic" in window.settings_vm.state.provider_status)
    settle(qtbot, worker)
    saved(dialog, artifacts / "settings_providers.png")
    dialog.tabs.setCurrentWidget(dialog.compaction)
    settle(qtbot, worker)
    saved(dialog, artifacts / "settings_compaction.png")
    dialog.tabs.setCurrentWidget(dialog.models)
    settle(qtbot, worker)
    saved(dialog, artifacts / "settings_models.png")


def test_dark_theme_screenshot(qtbot, backend, worker, artifacts) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker, dark=True)
    open_session(qtbot, window, sid)
    image = saved(window, artifacts / "dark.png")
    samples = [QColor(image.pixel(x, y)) for x in range(0, image.width(), 37) for y in range(0, image.height(), 29)]
    dark = sum(1 for c in samples if c.lightnessF() < 0.25)
    assert dark > 0.7 * len(samples)  # a dark window, not a light one with dark bits
    assert any(c.lightnessF() > 0.75 for c in samples)  # with light text on it


def test_error_with_retry_screenshot(qtbot, backend, worker, artifacts) -> None:
    from domain.events import ChatError

    sid = demo_sessions(backend)
    backend.scripts.append([TextDelta("Let me check the"), ChatError(
        "rate_limited", "The provider is rate limiting requests. Try again in 20 s.", retryable=True)])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    window.chat_vm.send("And the incident page?")
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming and window.chat_vm.model.rows()[-1].kind.value
                    == "error")
    settle(qtbot, worker)
    row = window.chat_vm.model.rows()[-1]
    assert row.retryable and "rate limiting" in row.text
    assert distinct_colors(saved(window, artifacts / "error_retry.png")) > 5
