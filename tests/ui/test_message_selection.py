"""Message text can be selected (drag, double-click, Select all), copied (Ctrl+C, Copy as Markdown), links followed."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QGuiApplication

from tests.ui.chat_helpers import hover, layout_of, row_of
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.window_helpers import open_session, settle, themed_window
from ui.models.chat_rows import RowKind
from ui.theme import LIGHT
from ui.widgets.doc_painter import TextRange
from ui.widgets.selection_text import is_web_link

REPLY = ("The **quick** brown fox jumps over the lazy dog.\n\n"
         "See [the docs](https://example.com/docs?x=1) or [this file](file:///etc/passwd) or "
         "[a script](javascript:alert(1)).\n\n```python\nprint('hi')\n```")


def _window(qtbot, worker, reply: str = REPLY):
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    session = backend.add_session("Selection", ["first line\nsecond line", reply], minutes_ago=1)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    opened: list[QUrl] = []
    window.chat_view.open_url = opened.append
    return window, opened


def _point_of(view, kind: RowKind, text: str, offset: int = 0) -> QPointF:
    """The viewport point at a character of a row's document (the left edge of that character)."""
    position, _ = row_of(view, kind)
    layout, rect = layout_of(view, position)
    doc = layout.doc
    at = doc.find(text).selectionStart() + offset
    block = doc.findBlock(at)
    line = block.layout().lineForTextPosition(at - block.position())
    x = line.cursorToX(at - block.position())[0]
    block_top = doc.documentLayout().blockBoundingRect(block).top()
    return rect.topLeft() + layout.doc_pos + QPointF(x + 0.5, block_top + line.y() + line.height() / 2)


def _drag(qtbot, view, start: QPointF, end: QPointF) -> None:
    viewport = view.viewport()
    a, b = start.toPoint(), end.toPoint()
    qtbot.mouseMove(viewport, a)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=a)
    for i in range(1, 6):
        qtbot.mouseMove(viewport, a + (b - a) * i / 5)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=b)


def test_dragging_over_a_reply_selects_that_span_and_ctrl_c_copies_it(qtbot, worker) -> None:
    window, _ = _window(qtbot, worker)
    view = window.chat_view
    _drag(qtbot, view, _point_of(view, RowKind.ASSISTANT, "quick"), _point_of(view, RowKind.ASSISTANT, "jumps"))
    assert window.chat_view.selector.text() == "quick brown fox "
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "quick brown fox "
    assert window.snackbar.text() == "Copied."


def test_the_selection_is_painted_in_the_selection_color(qtbot, worker) -> None:
    window, _ = _window(qtbot, worker)
    view = window.chat_view
    start, end = _point_of(view, RowKind.ASSISTANT, "brown"), _point_of(view, RowKind.ASSISTANT, "over")
    before = view.viewport().grab().toImage()
    _drag(qtbot, view, start, end)
    settle(qtbot, worker)
    image = view.viewport().grab().toImage()
    probe = QPoint(round((start.x() + end.x()) / 2), round(start.y()) + 5)
    colors = {image.pixelColor(probe.x() + dx, probe.y()).name() for dx in range(-20, 20)}
    assert QColor(LIGHT.selection).name() in colors
    assert QColor(LIGHT.selection).name() not in {before.pixelColor(probe.x() + dx, probe.y()).name()
                                                  for dx in range(-20, 20)}


def test_a_selection_can_span_lines_of_a_user_message(qtbot, worker) -> None:
    window, _ = _window(qtbot, worker)
    view = window.chat_view
    _drag(qtbot, view, _point_of(view, RowKind.USER, "line", 2), _point_of(view, RowKind.USER, "second", 3))
    assert view.selector.text() == "ne\nsec"


def test_double_click_selects_a_word_and_a_plain_click_clears_it(qtbot, worker) -> None:
    window, _ = _window(qtbot, worker)
    view = window.chat_view
    point = _point_of(view, RowKind.ASSISTANT, "brown", 2).toPoint()
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert view.selector.text() == "brown"
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert view.selector.text() == ""


def test_the_context_menu_copies_as_markdown_and_selects_all(qtbot, worker) -> None:
    window, _ = _window(qtbot, worker)
    view = window.chat_view
    point = _point_of(view, RowKind.ASSISTANT, "brown").toPoint()
    menu = view.selector.menu_for(point)
    assert menu is not None
    actions = {a.text(): a for a in menu.actions() if a.text()}
    assert list(actions)[:3] == ["Copy", "Copy as Markdown", "Select all"]
    assert not actions["Copy"].isEnabled()  # nothing selected yet
    actions["Select all"].trigger()
    assert view.selector.text().startswith("The quick brown fox")
    assert view.selector.text(markdown=True) == REPLY  # the whole reply: its Markdown source
    menu = view.selector.menu_for(point)
    actions = {a.text(): a for a in menu.actions() if a.text()}
    assert actions["Copy"].isEnabled()
    QGuiApplication.clipboard().clear()
    actions["Copy as Markdown"].trigger()
    assert QGuiApplication.clipboard().text() == REPLY
    actions["Copy"].trigger()
    assert QGuiApplication.clipboard().text().startswith("The quick brown fox jumps over the lazy dog.\nSee the docs")


def test_copy_as_markdown_of_a_partial_selection_keeps_its_emphasis(qtbot, worker) -> None:
    window, _ = _window(qtbot, worker)
    view = window.chat_view
    _, row = row_of(view, RowKind.ASSISTANT)
    view.selector.set_selection(TextRange(row.key, 4, 15))
    assert view.selector.text() == "quick brown"
    assert view.selector.text(markdown=True) == "**quick** brown"


def test_clicking_a_web_link_opens_it_and_hovering_shows_its_url(qtbot, worker) -> None:
    window, opened = _window(qtbot, worker)
    view = window.chat_view
    point = _point_of(view, RowKind.ASSISTANT, "the docs", 3).toPoint()
    hover(view, QPointF(point))
    qtbot.waitUntil(lambda: view.selector.hover_link() == "https://example.com/docs?x=1")
    assert view.viewport().cursor().shape() == Qt.CursorShape.PointingHandCursor
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert opened == [QUrl("https://example.com/docs?x=1")]


def test_links_that_are_not_http_or_https_are_never_opened(qtbot, worker) -> None:
    window, opened = _window(qtbot, worker)
    view = window.chat_view
    for text in ("this file", "a script"):
        point = _point_of(view, RowKind.ASSISTANT, text, 2).toPoint()
        hover(view, QPointF(point))
        assert "only http and https" in view.selector.hover_link()
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert opened == []
    assert not is_web_link("file:///etc/passwd") and not is_web_link("javascript:alert(1)")
    assert not is_web_link("/relative/path") and is_web_link("http://localhost:8080/x")


def test_the_pointer_is_an_i_beam_over_text(qtbot, worker) -> None:
    window, _ = _window(qtbot, worker)
    view = window.chat_view
    hover(view, _point_of(view, RowKind.ASSISTANT, "lazy", 1))
    qtbot.waitUntil(lambda: view.viewport().cursor().shape() == Qt.CursorShape.IBeamCursor)


def test_typing_after_selecting_goes_on_in_the_composer(qtbot, worker) -> None:
    window, _ = _window(qtbot, worker)
    view = window.chat_view
    _drag(qtbot, view, _point_of(view, RowKind.ASSISTANT, "quick"), _point_of(view, RowKind.ASSISTANT, "fox"))
    qtbot.keyClicks(view, "ok")
    assert window.composer.edit.toPlainText() == "ok"
