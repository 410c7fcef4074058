"""How a picker's rows look: provider headers in small capitals, choices with a check and a right-hand detail."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPointF, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from ui.models.picker_items import ITEM_ROLE, PickerItem

Index = QModelIndex | QPersistentModelIndex


class HasCurrent(Protocol):
    """The popup the delegate draws for: it knows which choice is current."""

    current: object


def draw_arrow(painter: QPainter, center: QPointF, color: QColor) -> None:
    """A small downward chevron."""
    path = QPainterPath()
    path.moveTo(center + QPointF(-4, -2))
    path.lineTo(center + QPointF(0, 2))
    path.lineTo(center + QPointF(4, -2))
    pen = QPen(color, 1.6)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    painter.drawPath(path)


class PickerDelegate(QStyledItemDelegate):
    """Group headers in small muted capitals; choices with a check for the current one and a right-hand detail."""

    def __init__(self, popup: HasCurrent, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._popup = popup

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        item = index.data(ITEM_ROLE)
        height = QFontMetrics(option.font).height()
        return QSize(200, height + (12 if isinstance(item, PickerItem) and item.header else 10))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        item = index.data(ITEM_ROLE)
        if not isinstance(item, PickerItem):
            return
        palette = option.palette
        rect: QRect = option.rect
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        muted = palette.color(palette.ColorRole.PlaceholderText)
        if item.header:
            font = QFont(option.font)
            font.setPointSizeF(font.pointSizeF() * 0.82)
            font.setWeight(QFont.Weight.DemiBold)
            font.setCapitalization(QFont.Capitalization.AllUppercase)
            painter.setFont(font)
            painter.setPen(muted)
            left = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            painter.drawText(rect.adjusted(10, 4, -10, 0), left, item.text)
            painter.restore()
            return
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            path = QPainterPath()
            path.addRoundedRect(rect.adjusted(4, 1, -4, -1), 5, 5)
            painter.fillPath(path, palette.color(palette.ColorRole.Highlight))
        text_color = palette.color(palette.ColorRole.HighlightedText if selected else palette.ColorRole.Text)
        current = item.data is not None and item.data == self._popup.current
        font = QFont(option.font)
        if current:
            font.setWeight(QFont.Weight.DemiBold)
        painter.setFont(font)
        metrics = QFontMetrics(font)
        align = int(Qt.AlignmentFlag.AlignVCenter)
        painter.setPen(text_color)
        if current:
            painter.drawText(rect.adjusted(10, 0, 0, 0), align | int(Qt.AlignmentFlag.AlignLeft), "✓")
        detail_w = metrics.horizontalAdvance(item.detail) + 8 if item.detail else 0
        if item.detail:
            painter.setPen(text_color if selected else muted)
            painter.drawText(rect.adjusted(0, 0, -12, 0), align | int(Qt.AlignmentFlag.AlignRight), item.detail)
        painter.setPen(text_color)
        text_rect = rect.adjusted(28, 0, -12 - detail_w, 0)
        text = metrics.elidedText(item.text, Qt.TextElideMode.ElideRight, text_rect.width())
        painter.drawText(text_rect, align | int(Qt.AlignmentFlag.AlignLeft), text)
        painter.restore()


