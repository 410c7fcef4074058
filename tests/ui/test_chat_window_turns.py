"""The main window around a turn (issue 13): typing and queueing while a reply streams, refused messages kept in the
composer, the "Not answered — Retry" mark (measured on pixels), the live header, and no empty chats in the sidebar."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QTextOption

from domain.events import ChatError, TextDelta
from domain.models import MessageType
from tests.ui.chat_helpers import click, hotspot, layout_of, row_of
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.gate import Gate
from tests.ui.window_helpers import open_session, settle, themed_window
from ui.models.chat_rows import RowKind
from ui.theme import LIGHT


def sent(backend: FakeChatBackend) -> list[str]:
    return [c[2] for c in backend.calls if c[0] == "send"]


def tinted(color: QColor, target: str) -> bool:
    """A pixel of text drawn in `target` over a light background: antialiasing blends it toward the background,
    but its hue stays (its channels lean the way the target's do)."""
    want = QColor(target)
    lean = [c - min(want.red(), want.green(), want.blue()) for c in (want.red(), want.green(), want.blue())]
    got = [c - min(color.red(), color.green(), color.blue()) for c in (color.red(), color.green(), color.blue())]
    return max(got) >= 40 and all((g >= 25) == (w >= 25) for g, w in zip(got, lean, strict=True))


def count_tinted(image: QImage, rect: QRect, target: str) -> int:
    r = rect.intersected(image.rect())
    return sum(1 for y in range(r.top(), r.bottom() + 1) for x in range(r.left(), r.right() + 1)
               if tinted(image.pixelColor(x, y), target))


def test_typing_goes_on_while_a_reply_streams_and_enter_queues_the_message(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat", ["Hi", "Hello!"])
    gate = Gate()
    backend.scripts.append([TextDelta("A long answer"), gate, TextDelta(".")])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, s.id)
    edit = window.composer.edit
    edit.setFocus()
    qtbot.keyClicks(edit, "First")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.chat_vm.state.streaming)
    qtbot.keyClicks(edit, "Follow-up")
    assert edit.toPlainText() == "Follow-up"  # typing works while the reply streams
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert edit.toPlainText() == "" and window.composer.queued.isVisibleTo(window)
    assert "Follow-up" in window.composer.queued_label.text() and "Queued" in window.composer.queued_label.text()
    window.composer.queued_cancel.click()  # withdrawn: back in the box, nothing queued
    assert edit.toPlainText() == "Follow-up" and not window.composer.queued.isVisibleTo(window)
    qtbot.keyClick(edit, Qt.Key.Key_Return)  # queued again; sent by itself when the turn ends
    assert window.chat_vm.state.queued == "Follow-up"
    gate.open()
    qtbot.waitUntil(lambda: sent(backend) == ["First", "Follow-up"], timeout=5000)
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming and window.chat_vm.state.queued is None)
    assert not window.composer.queued.isVisibleTo(window)


def test_a_message_the_backend_refuses_stays_in_the_composer_with_the_error_and_no_user_row(
        qtbot, backend, worker) -> None:
    s = backend.add_session("Chat", ["Hi", "Hello!"])
    backend.fits_chars = 1_000
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, s.id)
    paste = "log line 42: ok\n" * 500
    window.composer.edit.setPlainText(paste)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.composer.edit.toPlainText() == paste.strip(), timeout=5000)
    rows = window.chat_vm.model.rows()
    assert [r.kind for r in rows] == [RowKind.USER, RowKind.ASSISTANT, RowKind.ERROR]
    assert "too long" in rows[-1].text


def test_a_paste_over_a_million_characters_is_refused_without_calling_the_backend_and_kept(
        qtbot, backend, worker) -> None:
    s = backend.add_session("Chat", ["Hi", "Hello!"])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, s.id)
    paste = '{"k":"v"}' * 111_112  # minified JSON: one line, no spaces (1,000,008 characters)
    QGuiApplication.clipboard().setText(paste)
    window.composer.edit.setFocus()
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    # more than a message holds: not put in the box, offered as a file instead (tests/ui/test_oversized_paste.py)
    assert window.composer.edit.toPlainText() == "" and "1,000,008 characters" in window.snackbar.text()
    QGuiApplication.clipboard().setText(paste[:900_000])
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    # wrapped anywhere: Qt's word-boundary wrapping of a line this long froze the window for about 30 s
    assert window.composer.edit.wordWrapMode() is QTextOption.WrapMode.WrapAnywhere
    window.composer.edit.set_text(paste)  # a text that long in the box all the same is refused when sent, and kept
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    assert window.composer.edit.toPlainText() == paste and sent(backend) == []
    error = window.chat_vm.model.rows()[-1]
    assert error.kind is RowKind.ERROR and "1,000,008 characters" in error.text
    qtbot.waitUntil(lambda: error.text in window.snackbar.text())
    window.composer.edit.clear()  # an empty box wraps prose at word boundaries again
    assert window.composer.edit.wordWrapMode() is QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere


def test_an_unanswered_message_shows_not_answered_and_retry_under_it_and_retry_answers_it(
        qtbot, backend, worker) -> None:
    s = backend.add_session("Chat", ["Hi", "Hello!"])
    backend._store(s.id, MessageType.USER, "Is the sync fixed?")
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, s.id)
    view = window.chat_view
    position, row = row_of(view, RowKind.USER)
    assert row.text == "Is the sync fixed?" and row.unanswered
    layout, rect = layout_of(view, position)
    settle(qtbot, worker)
    image = view.viewport().grab().toImage()
    note = QRect(int(rect.left() + layout.note_pos.x()), int(rect.top() + layout.note_pos.y()), 90, 16)
    retry = hotspot(layout, "retry").translated(rect.topLeft()).toRect()
    assert count_tinted(image, note, LIGHT.error_text) > 40  # "Not answered —" drawn in the error color
    assert count_tinted(image, retry, LIGHT.accent) > 15  # "Retry" drawn as a link without hovering
    answered = layout_of(view, 0)
    below_first = QRect(int(answered[1].left() + answered[0].bubble.left() - 120),
                        int(answered[1].top() + answered[0].bubble.bottom() + 2), 240, 18)
    assert count_tinted(image, below_first, LIGHT.error_text) == 0  # an answered message has no such mark
    click(qtbot, view, hotspot(layout, "retry").center() + rect.topLeft())
    qtbot.waitUntil(lambda: ("retry", s.id, window.chat_vm.state.selection) in backend.calls)
    qtbot.waitUntil(lambda: bool(not window.chat_vm.state.streaming and window.chat_vm.model.rows()[-1].message_id
                                 and window.chat_vm.model.rows()[-1].text == "Retried reply."))  # read back
    # (bool: a callback returning None counts as passed for waitUntil, which made this wait return too early)
    assert not any(r.unanswered for r in window.chat_vm.model.rows())


def test_the_header_counts_the_messages_and_shows_the_context_while_the_first_reply_streams(
        qtbot, backend, worker) -> None:
    gate = Gate()
    backend.scripts.append([TextDelta("Hel"), gate, TextDelta("lo")])
    window = themed_window(qtbot, backend, worker)
    window.composer.edit.setPlainText("Hi")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: any(r.streaming and r.text == "Hel" for r in window.chat_vm.model.rows()))
    qtbot.waitUntil(lambda: window.chat_vm.state.context is not None)
    assert window.chat_vm.state.streaming
    assert window.header.subtitle.text().startswith("2 messages")
    assert window.header.gauge.ratio() > 0  # the bar fills instead of "context —"
    gate.open()
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming)


def test_a_failed_first_message_stays_listed_with_its_failure_and_an_empty_chat_is_not_listed(
        qtbot, backend, worker) -> None:
    backend.add_session("Lisbon", ["Plan four days", "Day 1: Alfama"], minutes_ago=5)
    backend.add_session("New chat")  # an empty session left behind earlier
    backend.scripts.append([ChatError("network", "Could not reach the provider (connection refused). Check the "
                                                 "connection and the base URL.", retryable=True)])
    backend.fits_chars = 50
    window = themed_window(qtbot, backend, worker)
    assert window.sidebar.model.rowCount() == 1  # the empty one is not listed
    window.chat_vm.send("Plan a trip")  # fails before any reply: listed, with the failure inside
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming and window.chat_vm.state.session is not None
                    and window.chat_vm.state.session.message_count == 1)
    assert window.sidebar.model.rowCount() == 2
    assert [r.kind for r in window.chat_vm.model.rows()] == [RowKind.USER, RowKind.ERROR]
    window.sessions_vm.new_chat()
    qtbot.waitUntil(lambda: window.chat_vm.state.session is None)
    window.chat_vm.send("x" * 60)  # refused before it was stored: an empty session, listed only while open
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming and window.chat_vm.state.session is not None
                    and window.composer.edit.toPlainText() == "x" * 60)
    assert window.sidebar.model.rowCount() == 3
    window.sessions_vm.new_chat()
    qtbot.waitUntil(lambda: window.sidebar.model.rowCount() == 2)
    window.sessions_vm.refresh()
    qtbot.waitUntil(lambda: not window.sessions_vm.state.loading)
    assert window.sidebar.model.rowCount() == 2


def test_a_stopped_reply_is_marked_stopped_early_while_it_waits_to_be_read_back(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat", ["Hi", "Hello!"])
    backend.cancel_gate = wound_down = Gate()  # the stopped reply waits to be stored until this opens
    backend.scripts.append([TextDelta("Part of a long answer"), Gate()])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, s.id)
    window.chat_vm.send("Go on")
    qtbot.waitUntil(lambda: any(r.streaming and r.text for r in window.chat_vm.model.rows()))
    window.chat_vm.stop()
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming)
    view = window.chat_view
    qtbot.waitUntil(lambda: row_of(view, RowKind.ASSISTANT)[1].incomplete and view.delegate.sizer.pending_count() == 0)
    position, row = row_of(view, RowKind.ASSISTANT)
    assert row.text == "Part of a long answer" and row.message_id is None  # still the live row: not yet read back
    layout, rect = layout_of(view, position)
    assert "stopped early (incomplete)" in layout.caption
    image = view.viewport().grab().toImage()
    caption = QRect(int(rect.left() + layout.caption_pos.x()), int(rect.top() + layout.caption_pos.y()),
                    160, int(layout.bubble.top() - layout.caption_pos.y()))
    assert count_dark(image, caption) > 40  # the mark is drawn above the bubble
    wound_down.open()
    qtbot.waitUntil(lambda: row_of(view, RowKind.ASSISTANT)[1].message_id is not None, timeout=5000)


def count_dark(image: QImage, rect: QRect) -> int:
    r = rect.intersected(image.rect())
    return sum(1 for y in range(r.top(), r.bottom() + 1) for x in range(r.left(), r.right() + 1)
               if image.pixelColor(x, y).lightness() < 170)


def test_a_refused_message_and_the_one_queued_behind_it_both_come_back_in_the_order_typed(
        qtbot, backend, worker) -> None:
    s = backend.add_session("Chat", ["Hi", "Hello!"])
    backend.fits_chars = 100
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, s.id)
    long = "z " * 200
    window._send(long)
    window._send("and a short follow-up")
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming and window.composer.edit.toPlainText() != "",
                    timeout=5000)
    settle(qtbot, worker)
    assert window.composer.edit.toPlainText() == long.strip() + "\n\nand a short follow-up"
    assert sent(backend) == [long.strip()] and window.chat_vm.state.queued is None
