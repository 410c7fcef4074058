"""TeX formulas as images (matplotlib's mathtext), rendered on a worker thread and cached per formula.

The GUI thread only looks images up: a formula not rendered yet is queued for the worker and shown as its source
until `ready` fires (then the rows showing it are laid out again). A formula mathtext cannot parse stays source.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QObject, QRegularExpression, Qt, QUrl, Signal, Slot
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontInfo,
    QFontMetricsF,
    QImage,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextImageFormat,
)

from ui.signals import emit

MATH_SOURCE = int(QTextFormat.Property.UserProperty) + 3  # a formula image's TeX source, with its delimiters
MATH_PENDING = "math_pending"  # a document property: some formula of it is still rendering (shown as source)
_FIRST_MARK, _LAST_MARK = 0xE000, 0xEFFF  # private-use characters standing for formula images in the Markdown
_MARK = QRegularExpression("[\\x{E000}-\\x{EFFF}]")
_OBJECT = "\ufffc"
_DISPLAY_FRACTION = re.compile(r"\\frac(?![A-Za-z])")  # a display formula's fractions at full size, as TeX sets them
SCALE = 2  # images are rendered at twice their size, sharp on high-density screens
DISPLAY_ZOOM = 1.2  # a display formula is set a little larger than the text around it


@dataclass(frozen=True)
class Formula:
    """One formula as it is to be drawn: its TeX, display or inline, the text's pixel size, x-height and color."""

    tex: str
    display: bool
    pixel_size: int
    x_height: float
    color: str


@dataclass(frozen=True)
class FormulaImage:
    """A rendered formula: the image (SCALE× its size) and the size it takes in the text, in pixels."""

    image: QImage
    width: float
    height: float


def formula_for(tex: str, display: bool, font: QFont, color: str) -> Formula:
    """The formula as drawn in a font and color."""
    return Formula(tex, display, max(6, QFontInfo(font).pixelSize()), QFontMetricsF(font).xHeight(), color)


def render_formula(formula: Formula) -> FormulaImage | None:
    """Renders a formula with mathtext (worker thread only: it imports matplotlib); None when it cannot be parsed.

    The image is padded above or below so that, drawn with AlignMiddle, the formula's baseline meets the text's.
    """
    import numpy as np
    from matplotlib.font_manager import FontProperties
    from matplotlib.mathtext import MathTextParser

    size = formula.pixel_size * (DISPLAY_ZOOM if formula.display else 1.0)
    tex = _DISPLAY_FRACTION.sub(r"\\dfrac", formula.tex) if formula.display else formula.tex
    try:
        parsed = MathTextParser("agg").parse(f"${tex}$", dpi=72 * SCALE, prop=FontProperties(size=size))
    except ValueError:
        return None
    alpha = np.asarray(parsed.image, dtype=np.uint8)
    height, width = alpha.shape
    depth = parsed.depth
    # Qt centres an AlignMiddle object on half the x-height above the baseline; pad to put the baseline there
    x_half = formula.x_height * SCALE / 2
    pad = round(2 * depth + x_half - height)
    top, bottom = (pad, 0) if pad > 0 else (0, -pad)
    color = QColor(formula.color)
    rgba = np.zeros((height + top + bottom, width, 4), dtype=np.uint8)
    a = alpha.astype(np.uint16)
    rgba[top:top + height, :, 0] = (a * color.blue() // 255).astype(np.uint8)  # premultiplied BGRA
    rgba[top:top + height, :, 1] = (a * color.green() // 255).astype(np.uint8)
    rgba[top:top + height, :, 2] = (a * color.red() // 255).astype(np.uint8)
    rgba[top:top + height, :, 3] = alpha
    data = rgba.tobytes()
    image = QImage(data, width, height + top + bottom, width * 4, QImage.Format.Format_ARGB32_Premultiplied).copy()
    return FormulaImage(image, width / SCALE, (height + top + bottom) / SCALE)


class MathImages(QObject):
    """The formula image cache: lookups on the GUI thread, rendering on one worker thread, `ready` when some arrive."""

    ready = Signal()  # formula images arrived: rows showing their source should be laid out again
    _rendered = Signal(object, object)  # (Formula, FormulaImage | None), from the worker thread

    def __init__(self, render: Callable[[Formula], FormulaImage | None] = render_formula, capacity: int = 2000) -> None:
        super().__init__()
        self._render = render
        self._capacity = capacity
        self._done: OrderedDict[Formula, FormulaImage | None] = OrderedDict()
        self._queued: set[Formula] = set()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="palimpsest-math")  # mathtext: one thread
        self._rendered.connect(self._arrived, Qt.ConnectionType.QueuedConnection)

    def lookup(self, formula: Formula) -> FormulaImage | None:
        """The formula's image if rendered; otherwise None, and it is queued for rendering (once)."""
        if formula in self._done:
            self._done.move_to_end(formula)
            return self._done[formula]
        if formula not in self._queued:
            self._queued.add(formula)
            self._pool.submit(self._work, formula)
        return None

    def will_render(self, formula: Formula) -> bool:
        """Whether a formula is queued (its image, if it parses, arrives with `ready`)."""
        return formula in self._queued

    def pending(self) -> int:
        """Formulas queued and not rendered yet."""
        return len(self._queued)

    def _work(self, formula: Formula) -> None:
        try:
            result = self._render(formula)
        except Exception:  # a formula mathtext chokes on stays source, never breaks the chat
            result = None
        emit(self._rendered, formula, result)

    @Slot(object, object)
    def _arrived(self, formula: Formula, result: FormulaImage | None) -> None:
        self._queued.discard(formula)
        self._done[formula] = result
        while len(self._done) > self._capacity:
            self._done.popitem(last=False)
        if result is not None:
            emit(self.ready)

    def shutdown(self) -> None:
        """Stops the worker thread (the queued formulas are dropped)."""
        self._pool.shutdown(wait=False, cancel_futures=True)


_instance: MathImages | None = None


def math_images() -> MathImages:
    """The application's formula image cache (created on first use, living on the GUI thread)."""
    global _instance
    if _instance is None:
        _instance = MathImages()
        app = QCoreApplication.instance()
        if app is not None:
            _instance.moveToThread(app.thread())
    return _instance


def use_math_images(images: MathImages | None) -> MathImages | None:
    """Replaces the application's cache (tests); returns the previous one."""
    global _instance
    previous, _instance = _instance, images
    return previous


def has_math(text: str) -> bool:
    """Whether a text may hold a formula (a cheap test before looking for one)."""
    return "$" in text or "\\(" in text or "\\[" in text


def image_format(image: FormulaImage, source: str, key: str) -> QTextImageFormat:
    """The character format that shows a formula image in a document, remembering its source."""
    fmt = QTextImageFormat()
    fmt.setName(key)
    fmt.setWidth(image.width)
    fmt.setHeight(image.height)
    fmt.setVerticalAlignment(QTextCharFormat.VerticalAlignment.AlignMiddle)
    fmt.setProperty(MATH_SOURCE, source)
    fmt.setToolTip(source)
    return fmt


class FormulaMarks:
    """The formulas of one document being built: a mark in the Markdown for each rendered inline formula, then its
    image in the mark's place; display formulas as centred image paragraphs."""

    def __init__(self, doc: QTextDocument, color: str, font: QFont, text: str) -> None:
        self._doc = doc
        self._color = color
        self._font = QFont(font)
        self._images = math_images()
        self._marks: dict[str, tuple[FormulaImage, str]] = {}
        self._usable = not any(_FIRST_MARK <= ord(c) <= _LAST_MARK for c in text)  # the marks must be unambiguous
        self._count = 0

    def _lookup(self, tex: str, display: bool) -> FormulaImage | None:
        formula = formula_for(tex, display, self._font, self._color)
        image = self._images.lookup(formula)
        if image is None and self._images.will_render(formula):
            self._doc.setProperty(MATH_PENDING, True)
        return image

    def _key(self, image: FormulaImage) -> str:
        self._count += 1
        key = f"math:{self._count}"
        self._doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(key), image.image)
        return key

    def mark(self, tex: str, source: str) -> str | None:
        """The mark standing for an inline formula's image, or None (no image yet: the source shows)."""
        if not self._usable or len(self._marks) > _LAST_MARK - _FIRST_MARK:
            return None
        image = self._lookup(tex, False)
        if image is None:
            return None
        mark = chr(_FIRST_MARK + len(self._marks))
        self._marks[mark] = (image, source)
        return mark

    def place(self, start: int) -> None:
        """Replaces the marks after a document position with their formula images."""
        if not self._marks:
            return
        cursor = self._doc.find(_MARK, start)
        while not cursor.isNull():
            found = self._marks.get(cursor.selectedText())
            if found is not None:
                image, source = found
                cursor.insertText(_OBJECT, image_format(image, source, self._key(image)))
            cursor = self._doc.find(_MARK, cursor)

    def insert_display(self, cursor: QTextCursor, tex: str, *, first: bool) -> bool:
        """Appends a display formula as a centred image paragraph; False when its image is not ready."""
        image = self._lookup(tex, True)
        if image is None:
            return False
        block = QTextBlockFormat()
        block.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        block.setTopMargin(6)
        block.setBottomMargin(6)
        if first or cursor.block().length() <= 1:
            cursor.setBlockFormat(block)
        else:
            cursor.insertBlock(block, QTextCharFormat())
        cursor.insertText(_OBJECT, image_format(image, f"$${tex}$$", self._key(image)))
        return True
