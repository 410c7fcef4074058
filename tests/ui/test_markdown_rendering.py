"""Markdown in replies: code lines never wrap (the box scrolls sideways), language labels, quotes, tables, TeX."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QWheelEvent

from tests.ui.chat_helpers import click, hotspot, layout_of, row_of
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.pixels import background, text_contrast
from tests.ui.window_helpers import open_session, settle, themed_window
from ui.markdown import code_frames, render_document, split_segments
from ui.markdown_math import inline_math_as_code
from ui.models.chat_rows import ChatRow, RowKind
from ui.theme import LIGHT
from ui.widgets.doc_painter import scrollbar_rect
from ui.widgets.row_layout import compute_layout

LONG = "curl -sS https://status.billing.example/api/v2/incidents/inc_82/updates?include=components,regions," \
       "postmortem_document_link,affected_services --header 'Authorization: Bearer $TOKEN' --retry 5 --fail"
REPLY = f"Run this:\n\n```bash\n{LONG}\necho done\n```\n\n> Quoted advice that matters.\n\nThe end."


def _layout(text: str, width: float = 700.0):
    return compute_layout(ChatRow(RowKind.ASSISTANT, "k", text=text, message_id="m"), width, False, LIGHT, QFont())


def _code_lines(layout) -> list[int]:
    doc = layout.doc
    frame = code_frames(doc)[0]
    counts = []
    block = doc.findBlock(frame.firstPosition())
    while block.isValid() and block.position() <= frame.lastPosition():
        counts.append(block.layout().lineCount())
        block = block.next()
    return counts


def test_a_long_code_line_is_not_wrapped_but_overflows_into_a_sideways_scroll(qapp) -> None:
    layout = _layout(REPLY)
    assert _code_lines(layout) == [1, 1]
    assert layout.code_overflow[0] > 100
    box = layout.code_rects[0]
    assert box.right() <= layout.bubble.right()
    assert layout.codes[0].splitlines()[0] == LONG  # Copy code offers the whole line


def test_a_code_box_is_labelled_with_its_language_and_its_copy_button_sits_above_it(qapp) -> None:
    layout = _layout("```python\nx = 1\n```\n\n```\nplain\n```")
    assert layout.code_languages == ["python", ""]
    for i, box in enumerate(layout.code_rects):
        button = hotspot(layout, f"copy-code:{i}")
        assert button.bottom() <= box.top() and button.right() <= box.right()


def test_a_heading_or_quote_right_after_a_code_box_keeps_its_format(qapp) -> None:
    doc, _ = render_document("```\ny\n```\n\n# Title\n\n```\nz\n```\n\n> quoted", LIGHT, QFont())
    blocks = {}
    block = doc.begin()
    while block.isValid():
        blocks[block.text()] = block.blockFormat()
        block = block.next()
    assert blocks["Title"].headingLevel() == 1
    assert blocks["quoted"].intProperty(0x1080) == 1  # QTextFormat.BlockQuoteLevel


def test_inline_math_becomes_a_code_span_and_display_math_a_math_code_box() -> None:
    assert inline_math_as_code(r"so $e^{i\pi} + 1 = 0$ holds") == r"so `e^{i\pi} + 1 = 0` holds"
    assert inline_math_as_code(r"and \(x^2\) too") == "and `x^2` too"
    assert inline_math_as_code("costs $5 or $10") == "costs $5 or $10"
    assert inline_math_as_code("code `$x$` stays") == "code `$x$` stays"
    segments = split_segments("Sum:\n\n$$\\sum_{n=1}^{N} n$$\n\nand \\[a=b\\]")
    math = [s for s in segments if s.code]
    assert [(s.language, s.text) for s in math] == [("math", "\\sum_{n=1}^{N} n"), ("math", "a=b")]


def test_inline_math_is_drawn_in_the_monospace_code_font(qapp) -> None:
    doc, _ = render_document("so $x^2$ holds", LIGHT, QFont())
    assert doc.toPlainText() == "so x^2 holds"
    cursor = doc.find("x^2")
    assert cursor.charFormat().fontFixedPitch()


def test_user_messages_keep_dollar_signs_literally(qapp) -> None:
    layout = compute_layout(ChatRow(RowKind.USER, "k", text="$x$ and $$y$$", message_id="m"), 700.0, False, LIGHT,
                            QFont())
    assert layout.doc.toPlainText() == "$x$ and $$y$$"


def _window(qtbot, worker, text: str = REPLY):
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    session = backend.add_session("Markdown", ["Show me", text], minutes_ago=1)
    window = themed_window(qtbot, backend, worker)
    window.resize(1000, 800)
    open_session(qtbot, window, session.id)
    return window


def _wheel(view, point: QPointF, dx: int) -> None:
    global_point = view.viewport().mapToGlobal(point.toPoint())
    event = QWheelEvent(point, QPointF(global_point), QPoint(0, 0), QPoint(dx, 0), Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QGuiApplication.sendEvent(view.viewport(), event)


def test_a_sideways_wheel_over_a_long_code_box_scrolls_it_and_shows_the_rest_of_the_line(qtbot, worker) -> None:
    window = _window(qtbot, worker)
    view = window.chat_view
    position, row = row_of(view, RowKind.ASSISTANT)
    layout, rect = layout_of(view, position)
    box = layout.code_rects[0].translated(rect.topLeft())
    before = view.viewport().grab(box.toRect()).toImage()
    vertical = view.verticalScrollBar().value()
    _wheel(view, box.center(), -480)
    offset = view.delegate.code_offsets[row.key][0]
    assert offset > 0
    assert view.verticalScrollBar().value() == vertical
    settle(qtbot, worker)
    after = view.viewport().grab(box.toRect()).toImage()
    assert before != after
    _wheel(view, box.center(), -100_000)  # clamped at the end of the longest line
    assert view.delegate.code_offsets[row.key][0] == layout.code_overflow[0]
    QGuiApplication.clipboard().clear()
    click(qtbot, view, hotspot(layout, "copy-code:0").center() + rect.topLeft())
    qtbot.waitUntil(lambda: QGuiApplication.clipboard().text().startswith(LONG))


def test_the_language_label_and_the_quote_bar_are_drawn(qtbot, worker) -> None:
    window = _window(qtbot, worker)
    view = window.chat_view
    position, _ = row_of(view, RowKind.ASSISTANT)
    layout, rect = layout_of(view, position)
    settle(qtbot, worker)
    image = view.viewport().grab().toImage()
    box = layout.code_rects[0].translated(rect.topLeft())
    label = QRect(round(box.left()), round(box.top()) - 16, 60, 15)
    assert text_contrast(image, label) >= 3.0
    bar = layout.quote_bars[0].translated(rect.topLeft())
    assert image.pixelColor(round(bar.center().x()), round(bar.center().y())) == QColor(LIGHT.divider)
    assert background(image, QRect(round(bar.right()) + 20, round(bar.top()), 200, round(bar.height()))) \
        == QColor(LIGHT.assistant_bubble)


def test_dragging_a_code_box_scroll_indicator_scrolls_the_box(qtbot, worker) -> None:
    window = _window(qtbot, worker)
    view = window.chat_view
    position, row = row_of(view, RowKind.ASSISTANT)
    layout, rect = layout_of(view, position)
    _, thumb = scrollbar_rect(layout, 0, 0.0)
    start = (thumb.center() + rect.topLeft()).toPoint()
    viewport = view.viewport()
    qtbot.mouseMove(viewport, start)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(viewport, start + QPoint(60, 0))
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=start + QPoint(60, 0))
    assert view.delegate.code_offsets[row.key][0] > 60
    assert view.selector.text() == ""  # dragging the indicator selects nothing


def test_two_adjacent_code_boxes_have_no_empty_line_between_them(qapp) -> None:
    doc, _ = render_document("```\nx\n```\n\n```\ny\n```", LIGHT, QFont())
    doc.setTextWidth(400)
    first, second = code_frames(doc)
    doc_layout = doc.documentLayout()
    gap = doc_layout.frameBoundingRect(second).top() - doc_layout.frameBoundingRect(first).bottom()
    assert gap <= 4


def test_while_streaming_a_paragraph_after_a_heading_or_quote_is_plain(qapp) -> None:
    from ui.markdown_stream import StreamingDocument

    stream = StreamingDocument(LIGHT, QFont())
    doc = stream.update("> a quote\n\n# Title\n\nplain after\n\nplain too")
    formats = {}
    block = doc.begin()
    while block.isValid():
        formats[block.text()] = (block.blockFormat().intProperty(0x1080), block.blockFormat().headingLevel())
        block = block.next()
    assert formats == {"a quote": (1, 0), "Title": (0, 1), "plain after": (0, 0), "plain too": (0, 0)}
