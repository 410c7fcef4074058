"""The painted message list is readable by a screen reader and usable from the keyboard: Tab reaches it, the arrows
move between messages, Enter opens a message's action line and runs an action; Qt's accessibility interface reports
the focused row's text (the message itself) and its role and actions; the focus is drawn."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt, QTimer
from PySide6.QtGui import QAccessible, QColor, QGuiApplication, QImage
from PySide6.QtWidgets import QApplication

from tests.ui.chat_helpers import layout_of
from tests.ui.window_helpers import REPLY, demo_sessions, open_session, themed_window
from ui.models.chat_rows import RowKind
from ui.theme import LIGHT

QUESTION = "Our nightly sync times out against the billing API. Can you write a retry helper?"


def focused_row():
    """The accessible interface of the row under keyboard focus in the focused widget."""
    widget = QApplication.focusWidget()
    assert widget is not None
    iface = QAccessible.queryAccessibleInterface(widget)
    assert iface is not None
    return iface.focusChild()


def tab_into_list(qtbot, window) -> None:
    window.composer.edit.setFocus()
    for _ in range(30):  # Tab goes round the window's controls; the list is one of them
        if window.chat_view.hasFocus():
            return
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    raise AssertionError(f"Tab never reached the message list (focus: {QApplication.focusWidget()})")


def accent_pixels(image: QImage, area: QRect) -> int:
    accent = QColor(LIGHT.accent)
    count = 0
    for x in range(max(0, area.left()), min(image.width(), area.right())):
        for y in range(max(0, area.top()), min(image.height(), area.bottom())):
            c = image.pixelColor(x, y)
            count += abs(c.red() - accent.red()) + abs(c.green() - accent.green()) + abs(c.blue() - accent.blue()) < 40
    return count


def test_tab_reaches_the_list_and_the_arrows_move_between_messages_read_by_the_accessibility_api(
        qtbot, backend, worker) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    view = window.chat_view
    tab_into_list(qtbot, window)
    rows = view.model().rows()
    assert view.currentIndex().row() == len(rows) - 1  # the newest row first
    tool = focused_row()
    assert tool.role() == QAccessible.Role.ListItem and tool.text(QAccessible.Text.Name).startswith("Tool http_request")
    qtbot.keyClick(view, Qt.Key.Key_Up)
    reply = focused_row()
    assert reply.text(QAccessible.Text.Name) == REPLY  # the text of the focused row is the message
    description = reply.text(QAccessible.Text.Description)
    assert description.startswith("Reply") and "Copy" in description and "Regenerate" in description
    qtbot.keyClick(view, Qt.Key.Key_Up)
    question = focused_row()
    assert question.text(QAccessible.Text.Name) == QUESTION
    assert question.text(QAccessible.Text.Description).startswith("Your message") and "Edit" in \
        question.text(QAccessible.Text.Description)
    list_iface = QAccessible.queryAccessibleInterface(view)
    assert list_iface.role() == QAccessible.Role.List and list_iface.text(QAccessible.Text.Name) == "Messages"


def test_enter_opens_the_action_line_the_arrows_choose_an_action_and_enter_runs_it(qtbot, backend, worker) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    view = window.chat_view
    tab_into_list(qtbot, window)
    qtbot.keyClick(view, Qt.Key.Key_Up)
    assert focused_row().text(QAccessible.Text.Name) == REPLY
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert focused_row().text(QAccessible.Text.Description).startswith("Action 1 of")
    assert ": Copy code." in focused_row().text(QAccessible.Text.Description)  # the code block's button, first
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert QGuiApplication.clipboard().text().startswith("import time")
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert ": Copy." in focused_row().text(QAccessible.Text.Description)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert QGuiApplication.clipboard().text() == REPLY  # Copy ran
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert ": Pin." in focused_row().text(QAccessible.Text.Description)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: next(r for r in view.model().rows() if r.text == REPLY).pinned)
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert focused_row().text(QAccessible.Text.Description).startswith("Reply")
    assert view.hasFocus()


def test_the_keyboard_focus_is_drawn_on_the_row_and_on_its_focused_action(qtbot, backend, worker, artifacts) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    view = window.chat_view
    position = next(i for i, r in enumerate(view.model().rows()) if r.kind is RowKind.USER)
    layout, rect = layout_of(view, position)
    bubble = layout.bubble.translated(rect.topLeft()).toRect()
    frame = bubble.adjusted(-6, -6, 6, 6)
    before = accent_pixels(view.viewport().grab().toImage(), frame) - accent_pixels(
        view.viewport().grab().toImage(), bubble.adjusted(3, 3, -3, -3))
    tab_into_list(qtbot, window)
    while view.currentIndex().row() != position:
        qtbot.keyClick(view, Qt.Key.Key_Up)

    def framed() -> int:
        image = view.viewport().grab().toImage()
        return accent_pixels(image, frame) - accent_pixels(image, bubble.adjusted(3, 3, -3, -3))

    qtbot.waitUntil(lambda: framed() > before + 100)  # a frame around the focused message
    image = view.viewport().grab().toImage()
    qtbot.keyClick(view, Qt.Key.Key_Return)
    spot = next(r for r, action, _ in layout.hotspots if action == "copy").translated(rect.topLeft()).toRect()
    ring = spot.adjusted(-6, -4, 6, 4)
    qtbot.waitUntil(lambda: accent_pixels(view.viewport().grab().toImage(), ring) > accent_pixels(image, ring) + 20)
    view.viewport().grab().toImage().save(str(artifacts / "keyboard_focus.png"))


def test_the_menu_key_opens_the_focused_messages_menu_with_fork(qtbot, backend, worker) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    view = window.chat_view
    tab_into_list(qtbot, window)
    qtbot.keyClick(view, Qt.Key.Key_Up)
    assert focused_row().text(QAccessible.Text.Name) == REPLY
    seen: list[list[str]] = []

    def look() -> None:
        menu = QApplication.activePopupWidget()
        if menu is None:
            QTimer.singleShot(20, look)
            return
        seen.append([a.text() for a in menu.actions()])
        menu.close()

    QTimer.singleShot(20, look)
    qtbot.keyClick(view, Qt.Key.Key_Menu)
    qtbot.waitUntil(lambda: bool(seen))
    assert "Fork into a new session" in seen[0] and "Copy as Markdown" in seen[0]
