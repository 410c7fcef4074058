"""A divider row's line: dashes either side of its centred bold label (compaction, "earlier messages")."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from ui.widgets.row_layout import MARGIN


def draw_divider(painter: QPainter, color: QColor, text: str, width: float, font: QFont) -> None:
    """Draws `text` centred 20 px down a row `width` wide, with a dashed line from each margin to it."""
    bold = QFont(font)
    bold.setWeight(QFont.Weight.DemiBold)
    metrics = QFontMetricsF(bold)
    text_w = metrics.horizontalAdvance(text)
    mid = width / 2
    y = 20.0
    painter.setPen(QPen(color, 1.2, Qt.PenStyle.DashLine))
    painter.drawLine(QPointF(MARGIN, y), QPointF(mid - text_w / 2 - 14, y))
    painter.drawLine(QPointF(mid + text_w / 2 + 14, y), QPointF(width - MARGIN, y))
    painter.setFont(bold)
    painter.setPen(color)
    painter.drawText(QPointF(mid - text_w / 2, y + metrics.ascent() / 2 - 1), text)
