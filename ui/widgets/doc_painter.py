"""Draws a row's text document: code boxes that scroll sideways, quote bars, code labels and a text selection."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
    QTextCharFormat,
    QTextCursor,
)

from ui.theme import Theme
from ui.widgets.row_layout import RowLayout

SCROLLBAR = 4.0  # height of the sideways scroll indicator at the bottom of an overflowing code box


@dataclass(frozen=True)
class TextRange:
    """A selection inside one row's document: from anchor (where the drag started) to position."""

    key: str
    anchor: int
    position: int

    @property
    def start(self) -> int:
        """The smaller end."""
        return min(self.anchor, self.position)

    @property
    def end(self) -> int:
        """The larger end."""
        return max(self.anchor, self.position)


def clamp_offset(layout: RowLayout, box: int, offset: float) -> float:
    """A code box's sideways scroll offset kept within its overflow."""
    if box >= len(layout.code_overflow):
        return 0.0
    return max(0.0, min(offset, layout.code_overflow[box]))


def box_at(layout: RowLayout, point: QPointF) -> int | None:
    """The code box under a row-local point."""
    for i, rect in enumerate(layout.code_rects):
        if rect.contains(point):
            return i
    return None


def doc_point(layout: RowLayout, point: QPointF, offsets: Mapping[int, float]) -> QPointF:
    """A row-local point in document coordinates (inside a scrolled code box, the scrolled position)."""
    local = point - layout.doc_pos
    box = box_at(layout, point)
    if box is not None:
        local += QPointF(clamp_offset(layout, box, offsets.get(box, 0.0)), 0)
    return local


def scrollbar_rect(layout: RowLayout, box: int, offset: float) -> tuple[QRectF, QRectF]:
    """The track and thumb of an overflowing code box's scroll indicator (row-local)."""
    rect = layout.code_rects[box]
    overflow = layout.code_overflow[box]
    track = QRectF(rect.left() + 6, rect.bottom() - SCROLLBAR - 3, rect.width() - 12, SCROLLBAR)
    thumb_w = max(24.0, track.width() * rect.width() / (rect.width() + overflow))
    x = track.left() + (track.width() - thumb_w) * (offset / overflow if overflow else 0.0)
    return track, QRectF(x, track.top(), thumb_w, SCROLLBAR)


def draw_document(painter: QPainter, layout: RowLayout, theme: Theme, visible: QRectF, *,
                  offsets: Mapping[int, float], selection: TextRange | None = None) -> None:
    """Paints the document at its place in the row; `visible` is the row-local area that shows."""
    doc = layout.doc
    if doc is None:
        return
    origin = layout.doc_pos
    ctx = QAbstractTextDocumentLayout.PaintContext()
    if selection is not None and selection.start != selection.end:
        last = doc.characterCount() - 1
        cursor = QTextCursor(doc)
        cursor.setPosition(min(selection.start, last))
        cursor.setPosition(min(selection.end, last), QTextCursor.MoveMode.KeepAnchor)
        chosen = QAbstractTextDocumentLayout.Selection()
        chosen.cursor = cursor
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(theme.selection))
        chosen.format = fmt
        ctx.selections = [chosen]
    for bar in layout.quote_bars:
        painter.fillRect(bar, QColor(theme.divider))
    scrolled = [i for i, overflow in enumerate(layout.code_overflow) if overflow > 0]
    clip = visible.translated(-origin)
    painter.save()
    painter.translate(origin)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)  # formula images are drawn at half their size
    draw = doc.documentLayout().draw
    if not scrolled:
        ctx.clip = clip
        painter.setClipRect(clip, Qt.ClipOperation.IntersectClip)
        draw(painter, ctx)
    else:
        outside = QPainterPath()
        outside.addRect(clip)
        for i in scrolled:
            box = layout.code_rects[i].translated(-origin)
            band = QPainterPath()
            band.addRect(QRectF(box.left(), box.top(), 1e6, box.height()))  # the widened frame, to its far end
            outside = outside.subtracted(band)
        painter.save()
        painter.setClipPath(outside, Qt.ClipOperation.IntersectClip)
        ctx.clip = clip
        draw(painter, ctx)
        painter.restore()
        for i in scrolled:
            box = layout.code_rects[i].translated(-origin)
            offset = clamp_offset(layout, i, offsets.get(i, 0.0))
            painter.save()
            painter.setClipRect(box, Qt.ClipOperation.IntersectClip)
            painter.translate(-offset, 0)
            ctx.clip = box.translated(offset, 0)
            draw(painter, ctx)
            painter.restore()
            painter.setPen(QPen(QColor(theme.border), 1))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(box.adjusted(0.5, 0.5, -0.5, -0.5))
    painter.restore()
    for i in scrolled:
        track, thumb = scrollbar_rect(layout, i, clamp_offset(layout, i, offsets.get(i, 0.0)))
        painter.fillRect(track, QColor(theme.border))
        thumb_path = QPainterPath()
        thumb_path.addRoundedRect(thumb, 2, 2)
        painter.fillPath(thumb_path, QColor(theme.muted))


def draw_code_labels(painter: QPainter, layout: RowLayout, theme: Theme, font: QFont) -> None:
    """The language of each code box, in the caption strip above it."""
    metrics = QFontMetricsF(font)
    painter.setFont(font)
    painter.setPen(QColor(theme.muted))
    for rect, language in zip(layout.code_rects, layout.code_languages, strict=True):
        if language:
            painter.drawText(QPointF(rect.left() + 2, rect.top() - 3 - metrics.descent()), language)
