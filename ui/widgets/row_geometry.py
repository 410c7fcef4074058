"""The chat row's geometry: its spacing constants, the RowLayout every painter, sizer and click reads, the caption
font, the action line's hotspots and the attachment tile grid."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QFont, QFontMetricsF, QTextDocument

MARGIN = 20.0


PAD = 12.0


GAP = 6.0


ACTION_LINE = 16.0


MAX_ASSISTANT = 880.0


TOOL_HEADER = 34.0


PREVIEW_CHARS = 1_500
TILE_W, TILE_H = 132.0, 92.0  # an attachment's tile in a user message


@dataclass
class RowLayout:
    """Where everything of one row goes, in row-local coordinates."""

    height: float
    bubble: QRectF = field(default_factory=QRectF)
    doc: QTextDocument | None = None
    doc_pos: QPointF = field(default_factory=QPointF)
    extra_doc: QTextDocument | None = None
    extra_pos: QPointF = field(default_factory=QPointF)
    codes: list[str] = field(default_factory=list)
    code_rects: list[QRectF] = field(default_factory=list)  # the visible part of each code box
    code_languages: list[str] = field(default_factory=list)
    code_overflow: list[float] = field(default_factory=list)  # how far each box's longest line reaches past it
    quote_bars: list[QRectF] = field(default_factory=list)
    hotspots: list[tuple[QRectF, str, str]] = field(default_factory=list)  # rect, action, label
    caption: str = ""
    caption_pos: QPointF = field(default_factory=QPointF)
    note: str = ""  # "Not answered" under a user message whose turn failed (top-left of the text)
    note_pos: QPointF = field(default_factory=QPointF)
    tiles: list[QRectF] = field(default_factory=list)  # one per attachment of a user message, above its text
    math_pending: bool = False  # a formula shows as source until its image is rendered (then laid out again)

    def hit(self, point: QPointF) -> str | None:
        """The action under a row-local point."""
        for rect, action, _ in self.hotspots:
            if rect.adjusted(-3, -3, 3, 3).contains(point):
                return action
        return None


def _small(font: QFont) -> QFont:
    small = QFont(font)
    small.setPointSizeF(max(7.0, font.pointSizeF() * 0.86))
    return small


small_font = _small  # the font of captions, tool details and reasoning


def _actions(labels: list[tuple[str, str]], font: QFont, x: float, y: float, *, right: float | None = None
             ) -> list[tuple[QRectF, str, str]]:
    metrics = QFontMetricsF(_small(font))
    widths = [metrics.horizontalAdvance(label) for _, label in labels]
    total = sum(widths) + 14.0 * max(0, len(labels) - 1)
    cursor = (right - total) if right is not None else x
    spots = []
    for (action, label), width in zip(labels, widths, strict=True):
        spots.append((QRectF(cursor, y, width, metrics.height()), action, label))
        cursor += width + 14.0
    return spots


def tile_grid(count: int, inner_width: float) -> tuple[int, float, float]:
    """(tiles per line, width, height) of a user message's attachment tiles within the bubble's inner width."""
    if not count:
        return 0, 0.0, 0.0
    per_line = max(1, int((inner_width + GAP) // (TILE_W + GAP)))
    lines = -(-count // per_line)
    shown = min(count, per_line)
    return per_line, shown * TILE_W + (shown - 1) * GAP, lines * TILE_H + (lines - 1) * GAP + GAP
