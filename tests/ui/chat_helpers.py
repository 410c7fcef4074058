"""Finding and clicking things inside delegate-painted chat rows (for widget tests)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from ui.models.chat_rows import ChatRow, RowKind
from ui.widgets.chat_view import ChatView
from ui.widgets.row_layout import RowLayout
from ui.widgets.row_sizer import layout_width


def row_of(view: ChatView, kind: RowKind) -> tuple[int, ChatRow]:
    """The last row of a kind and its position."""
    rows = view.model().rows()  # type: ignore[attr-defined]
    position = max(i for i, r in enumerate(rows) if r.kind is kind)
    return position, rows[position]


def layout_of(view: ChatView, position: int) -> tuple[RowLayout, QRectF]:
    """A row's layout and its rectangle in viewport coordinates (scrolled into view first)."""
    model = view.model()
    index = model.index(position, 0)
    view.scrollTo(index)
    row = model.row_at(position)  # type: ignore[attr-defined]
    expanded = model.is_expanded(row.key)  # type: ignore[attr-defined]
    layout = view.delegate.layout_for(row, layout_width(view), expanded, view.font())
    return layout, QRectF(view.visualRect(index))


def hotspot(layout: RowLayout, action: str) -> QRectF:
    """The row-local rectangle of an action."""
    return next(rect for rect, name, _ in layout.hotspots if name == action)


def click(qtbot, view: ChatView, point: QPointF) -> None:
    """A left click at a viewport point (after moving there, as a mouse would)."""
    pos = QPoint(round(point.x()), round(point.y()))
    qtbot.mouseMove(view.viewport(), pos)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def click_action(qtbot, view: ChatView, position: int, action: str) -> RowLayout:
    """Clicks action `action` of the row at `position` (scrolled into view first); the row's layout before the
    click (its hotspots name every action offered)."""
    layout, rect = layout_of(view, position)
    spot = hotspot(layout, action)
    click(qtbot, view, QPointF(rect.left() + spot.center().x(), rect.top() + spot.center().y()))
    return layout


def hover(view: ChatView, point: QPointF) -> None:
    """A mouse move with no button held, sent to the list itself (not via the global cursor, which another test's
    leftover window could be under)."""
    viewport = view.viewport()
    event = QMouseEvent(QEvent.Type.MouseMove, point, QPointF(viewport.mapToGlobal(point.toPoint())),
                        Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewport, event)
