"""TeX in replies is drawn as formulas (matplotlib mathtext, on a worker thread, cached per formula), copied as TeX."""

from __future__ import annotations

import threading

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QColor, QFont, QTextCursor, QTextImageFormat

from tests.ui.chat_helpers import layout_of, row_of
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.pixels import text_contrast
from tests.ui.window_helpers import open_session, themed_window
from ui.markdown import code_frames, render_document
from ui.math_images import MATH_SOURCE, MathImages, render_formula
from ui.models.chat_rows import RowKind
from ui.theme import LIGHT
from ui.widgets.doc_painter import TextRange

REPLY = ("Euler's identity $e^{i\\pi} + 1 = 0$ is famous; tickets cost $5 and $10.\n\n"
         "$$\\sum_{n=1}^{N} n = \\frac{N(N+1)}{2}$$\n\nDone.")


def _formulas(doc) -> list[str]:
    """The TeX sources of the formula images in a document, in order."""
    found = []
    block = doc.begin()
    while block.isValid():
        for item in block:
            fmt = item.fragment().charFormat()
            if fmt.isImageFormat() and fmt.stringProperty(MATH_SOURCE):
                found.append(fmt.stringProperty(MATH_SOURCE))
        block = block.next()
    return found


def _rendered(qtbot, images: MathImages, text: str):
    """The document of a text once every formula it asks for is rendered."""
    render_document(text, LIGHT, QFont())
    qtbot.waitUntil(lambda: images.pending() == 0)
    return render_document(text, LIGHT, QFont())


def test_formulas_become_images_and_prices_stay_text(qtbot, math_cache) -> None:
    doc, codes = _rendered(qtbot, math_cache, REPLY)
    assert _formulas(doc) == ["$e^{i\\pi} + 1 = 0$", "$$\\sum_{n=1}^{N} n = \\frac{N(N+1)}{2}$$"]
    assert "tickets cost $5 and $10." in doc.toPlainText()  # a price is not math
    assert "\\sum" not in doc.toPlainText() and "\\pi" not in doc.toPlainText()
    assert not code_frames(doc) and codes == []  # the display formula is an image, not a code box


def test_each_formula_is_rendered_once_off_the_gui_thread(qtbot) -> None:
    calls: list[tuple[str, int]] = []

    def counting(formula):
        calls.append((formula.tex, threading.get_ident()))
        return render_formula(formula)

    images = MathImages(render=counting)
    from ui.math_images import use_math_images

    previous = use_math_images(images)
    try:
        for _ in range(3):
            render_document("a $x^2$ b $x^2$", LIGHT, QFont())
        qtbot.waitUntil(lambda: images.pending() == 0)
        doc, _ = render_document("again $x^2$", LIGHT, QFont())
    finally:
        use_math_images(previous)
        images.shutdown()
    assert [tex for tex, _ in calls] == ["x^2"]
    assert threading.get_ident() not in {thread for _, thread in calls}
    assert _formulas(doc) == ["$x^2$"]


def test_a_formula_mathtext_cannot_parse_stays_source(qtbot, math_cache) -> None:
    doc, codes = _rendered(qtbot, math_cache, "$$\\begin{align}x\\end{align}$$")
    assert _formulas(doc) == [] and codes == ["\\begin{align}x\\end{align}"]


def test_the_reply_shows_the_formulas_and_copies_their_source(qtbot, worker, math_cache) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    session = backend.add_session("Math", ["Show me some math", REPLY], minutes_ago=1)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    view = window.chat_view

    def shown():
        position, _ = row_of(view, RowKind.ASSISTANT)
        layout, rect = layout_of(view, position)
        return layout, rect

    qtbot.waitUntil(lambda: len(_formulas(shown()[0].doc)) == 2)
    layout, rect = shown()
    index = view.model().index(row_of(view, RowKind.ASSISTANT)[0])
    qtbot.waitUntil(lambda: abs(view.visualRect(index).height() - layout.height) <= 1)  # the images' height
    doc = layout.doc
    display = doc.begin()
    while display.text() != "\ufffc":  # the display formula's paragraph holds its image alone
        display = display.next()
    block_rect = doc.documentLayout().blockBoundingRect(display)
    area = block_rect.translated(rect.topLeft() + layout.doc_pos).toRect()
    image = view.viewport().grab().toImage()
    assert text_contrast(image, area) > 4.0  # the formula is drawn (dark glyphs on the bubble)
    # the formula is centred: its ink is as far from the bubble's left as from its right
    ink = [x for x in range(area.left(), area.right()) for y in range(area.top(), area.bottom(), 2)
           if image.pixelColor(x, y).lightness() < 128]
    assert ink and abs((min(ink) - layout.bubble.left() - rect.left())
                       - (layout.bubble.right() + rect.left() - max(ink))) < 24
    key = row_of(view, RowKind.ASSISTANT)[1].key
    view.selector.set_selection(TextRange(key, 0, doc.characterCount() - 1))
    assert view.selector.text() == ("Euler's identity $e^{i\\pi} + 1 = 0$ is famous; tickets cost $5 and $10.\n"
                                    "$$\\sum_{n=1}^{N} n = \\frac{N(N+1)}{2}$$\nDone.")
    cursor = QTextCursor(doc)
    cursor.setPosition(doc.find("identity").selectionEnd() + 1)
    cursor.setPosition(doc.find("is famous").selectionStart(), QTextCursor.MoveMode.KeepAnchor)
    view.selector.set_selection(TextRange(key, cursor.anchor(), cursor.position()))
    assert view.selector.text().strip() == "$e^{i\\pi} + 1 = 0$"
    assert view.selector.text(markdown=True).strip() == "$e^{i\\pi} + 1 = 0$"


def test_the_image_takes_the_text_color_and_fits_the_line(qtbot, math_cache) -> None:
    doc, _ = _rendered(qtbot, math_cache, "so $x$ holds")
    cursor = doc.find("\ufffc")
    fmt = QTextImageFormat(cursor.charFormat())
    line_height = doc.documentLayout().blockBoundingRect(doc.begin()).height()
    assert 0 < fmt.height() <= line_height * 1.5
    name = fmt.name()
    resource = doc.resource(doc.ResourceType.ImageResource, name)
    colors = {QColor(resource.pixel(x, y)).name() for x in range(resource.width()) for y in range(resource.height())
              if QColor.fromRgba(resource.pixel(x, y)).alpha() == 255}
    assert QColor(LIGHT.text).name() in colors
    assert QRect(QPoint(0, 0), resource.size()).isValid()
