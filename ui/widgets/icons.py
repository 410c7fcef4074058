"""Small icons drawn with QPainter (no icon font or emoji font is assumed to exist on the system)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap


def paperclip_icon(color: str, size: int = 20) -> QIcon:
    """A paperclip: an outer and an inner loop, slanted, in `color`."""
    pixmap = QPixmap(size * 2, size * 2)  # drawn at twice the size, for high-DPI screens
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.translate(size, size)
    painter.rotate(40)
    painter.translate(-size, -size)
    pen = QPen(QColor(color), size * 0.16, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    s = size / 10.0
    path = QPainterPath()
    path.moveTo(QPointF(12 * s, 5 * s))  # the inner leg, up from the middle
    path.lineTo(QPointF(12 * s, 13 * s))
    path.arcTo(QRectF(8 * s, 11 * s, 4 * s, 4 * s), 0, -180)
    path.lineTo(QPointF(8 * s, 4 * s))
    path.arcTo(QRectF(8 * s, 1 * s, 6 * s, 6 * s), 180, -180)
    path.lineTo(QPointF(14 * s, 15 * s))
    path.arcTo(QRectF(6 * s, 11 * s, 8 * s, 8 * s), 0, -180)
    path.lineTo(QPointF(6 * s, 6 * s))
    painter.drawPath(path)
    painter.end()
    return QIcon(pixmap)


def globe_icon(color: str, size: int = 18) -> QIcon:
    """A globe: its outline, the equator, two parallels and a meridian's ellipse, in `color`."""
    pixmap = QPixmap(size * 2, size * 2)  # drawn at twice the size, for high-DPI screens
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    s = size * 2 / 20.0
    painter.setPen(QPen(QColor(color), 1.6 * s))
    outline = QRectF(2 * s, 2 * s, 16 * s, 16 * s)
    painter.drawEllipse(outline)
    painter.drawEllipse(QRectF(6.5 * s, 2 * s, 7 * s, 16 * s))
    painter.drawLine(QPointF(2 * s, 10 * s), QPointF(18 * s, 10 * s))
    painter.drawLine(QPointF(3.6 * s, 6 * s), QPointF(16.4 * s, 6 * s))
    painter.drawLine(QPointF(3.6 * s, 14 * s), QPointF(16.4 * s, 14 * s))
    painter.end()
    return QIcon(pixmap)
