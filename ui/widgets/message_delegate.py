"""Paints chat rows (bubbles, Markdown, code boxes, tool rows, the compaction divider) and turns clicks into actions."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QMouseEvent, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QAbstractItemView, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from ui.models.chat_rows import ChatRow, RowKind, thinking_status
from ui.models.message_list import EXPANDED_ROLE, ROW_ROLE, MessageListModel
from ui.signals import emit
from ui.theme import Theme
from ui.widgets.attachment_tiles import ThumbnailSource, paint_tiles
from ui.widgets.divider_painter import draw_divider
from ui.widgets.doc_painter import TextRange, clamp_offset, draw_code_labels, draw_document
from ui.widgets.row_layout import MARGIN, PAD, LayoutCache, RowLayout, _small
from ui.widgets.row_sizer import RowSizer, layout_width

Index = QModelIndex | QPersistentModelIndex

MCP_ACTIONS = ("open-resource:", "mcp-sign-in")  # a tool card's links: its resources, a sign-in


class MessageDelegate(QStyledItemDelegate):
    """Draws one ChatRow per item; emits `action(name, row, code_index)` for clicks on its links."""

    action = Signal(str, object)  # action name (e.g. "copy", "copy-code:0"), ChatRow

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._theme = theme
        self._cache = LayoutCache()
        self._hover: tuple[str, str] | None = None  # row key, action
        self.sizer = RowSizer(self._cache, self, lambda: self._theme)
        self._hints: dict[str, tuple[ChatRow, float, bool, int]] = {}  # key -> (row, width, expanded, height)
        self.code_offsets: dict[str, dict[int, float]] = {}  # row key -> code box -> sideways scroll offset
        self.selection: TextRange | None = None  # selected text (one row at a time)
        self.thumbnail: ThumbnailSource | None = None  # an image attachment's thumbnail, once fetched
        self.highlighted: str | None = None  # a message id shown with an accent frame (a search hit, briefly)
        self.keyboard: tuple[str, str | None] | None = None  # the row key under keyboard focus, and its action

    def set_theme(self, theme: Theme) -> None:
        """Switches colors (system scheme changed)."""
        self._theme = theme
        self._cache.clear()
        self._hints.clear()

    def math_arrived(self) -> list[str]:
        """Formula images arrived: the rows that showed their source are laid out again; returns their keys."""
        keys = [row.key for row in self._cache.relayout_math()]
        for key in keys:
            self._hints.pop(key, None)
        return keys

    def layout_for(self, row: ChatRow, width: float, expanded: bool, font: QFont) -> RowLayout:
        """The (cached) layout of a row."""
        return self._cache.get(row, width, expanded, self._theme, font)

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        model = index.model()
        if isinstance(model, MessageListModel):  # fast path: no QVariant round trips (called for every row)
            row, expanded = model.row_at(index.row()), False
            if row is not None:
                expanded = model.is_expanded(row.key)
        else:
            row, expanded = index.data(ROW_ROLE), bool(index.data(EXPANDED_ROLE))
        if not isinstance(row, ChatRow):
            return QSize(0, 0)
        width = self._width(option)
        hint = self._hints.get(row.key)
        if hint is not None and hint[0] is row and hint[1] == width and hint[2] == expanded:
            return QSize(int(width), hint[3])
        height = self.sizer.height(row, width, expanded, option.font, index)
        if self.sizer.is_exact(row, width, expanded, option.font):
            if len(self._hints) > 4000:
                self._hints.clear()
            self._hints[row.key] = (row, width, expanded, height)
        return QSize(int(width), height)

    @staticmethod
    def _width(option: QStyleOptionViewItem) -> float:
        widget = option.widget
        if isinstance(widget, QAbstractItemView):
            return layout_width(widget)
        return float(option.rect.width()) or 800.0

    # --- painting --------------------------------------------------------------------------------
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        row = index.data(ROW_ROLE)
        if not isinstance(row, ChatRow):
            return
        rect: QRectF = QRectF(option.rect)
        expanded = bool(index.data(EXPANDED_ROLE))
        font: QFont = option.font
        width = self._width(option)
        layout = self.layout_for(row, width, expanded, font)
        self.sizer.settled(row, width, expanded, font, int(rect.height()), index)
        focused = bool(option.state & QStyle.StateFlag.State_HasFocus)  # the list has focus and this is its row
        hovered = bool(option.state & QStyle.StateFlag.State_MouseOver) or focused  # the action line shows too
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.translate(rect.topLeft())
        if row.dimmed and row.kind is not RowKind.DIVIDER:
            painter.setOpacity(0.5)
        if row.kind is RowKind.DIVIDER:
            self._paint_divider(painter, row, layout, rect.width(), font)
        elif row.kind is RowKind.LOAD_OLDER:
            self._paint_links(painter, row, layout, font, always=True)
        elif row.kind in (RowKind.TOOL, RowKind.THINKING):
            self._paint_tool(painter, row, layout, expanded, font, hovered)
        else:
            self._paint_text(painter, row, layout, font, hovered)
        if self.highlighted is not None and row.message_id == self.highlighted:
            bubble = layout.bubble if row.kind in (RowKind.USER, RowKind.ASSISTANT) else None
            area = bubble.adjusted(-4, -4, 4, 4) if bubble is not None else QRectF(0, 0, rect.width(), rect.height())
            self._paint_highlight(painter, area)
        if focused:
            self._paint_focus(painter, row, layout, QRectF(0, 0, rect.width(), rect.height()))
        painter.restore()

    def _paint_focus(self, painter: QPainter, row: ChatRow, layout: RowLayout, whole: QRectF) -> None:
        """The keyboard focus: a frame around the row's bubble (or the row), and around its focused action."""
        painter.setOpacity(1.0)
        pen = QPen(QColor(self._theme.accent), 2, Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        area = layout.bubble if not layout.bubble.isEmpty() else whole.adjusted(MARGIN / 2, 1, -MARGIN / 2, -1)
        painter.drawRoundedRect(area.adjusted(-3, -3, 3, 3), 14, 14)
        action = self.keyboard[1] if self.keyboard is not None and self.keyboard[0] == row.key else None
        spot = next((rect for rect, name, _ in layout.hotspots if name == action), None)
        if spot is not None:
            painter.setPen(QPen(QColor(self._theme.accent), 2))
            painter.drawRoundedRect(spot.adjusted(-4, -2, 4, 2), 4, 4)

    def _paint_highlight(self, painter: QPainter, area: QRectF) -> None:
        accent = QColor(self._theme.accent)
        painter.setOpacity(1.0)
        path = QPainterPath()
        path.addRoundedRect(area.adjusted(3, 1, -3, -1), 14, 14)
        tint = QColor(accent)
        tint.setAlpha(38)
        painter.fillPath(path, tint)
        painter.setPen(QPen(accent, 2))
        painter.drawPath(path)

    def _paint_text(self, painter: QPainter, row: ChatRow, layout: RowLayout, font: QFont, hovered: bool) -> None:
        t = self._theme
        fill = {RowKind.USER: t.user_bubble, RowKind.ERROR: t.error_bg}.get(row.kind, t.assistant_bubble)
        path = QPainterPath()
        path.addRoundedRect(layout.bubble, 12, 12)
        painter.fillPath(path, QColor(fill))
        if row.kind is RowKind.ASSISTANT:
            painter.setPen(QPen(QColor(t.border), 1))
            painter.drawPath(path)
        if row.pinned:
            painter.setPen(QPen(QColor(t.accent), 2))
            painter.drawPath(path)
        small = _small(font)
        painter.setFont(small)
        if layout.caption:
            painter.setPen(QColor(t.error_text if row.kind is RowKind.ERROR else t.muted))
            badges = layout.caption
            if row.pinned:
                badges += "  ·  pinned"
            painter.drawText(layout.caption_pos + QPointF(0, QFontMetricsF(small).ascent()), badges)
        elif row.pinned:
            painter.setPen(QColor(t.accent))
            painter.drawText(layout.bubble.topRight() + QPointF(-60, -2), "pinned")
        if layout.note:
            painter.setPen(QColor(t.error_text))
            painter.drawText(layout.note_pos + QPointF(0, QFontMetricsF(small).ascent()), layout.note)
        if layout.tiles:
            paint_tiles(painter, layout.tiles, row.attachments, t, font, self.thumbnail)
        self._paint_doc(painter, row, layout, small)
        self._paint_links(painter, row, layout, font, always=hovered or row.kind is RowKind.ERROR)

    def _paint_doc(self, painter: QPainter, row: ChatRow, layout: RowLayout, label_font: QFont) -> None:
        if layout.doc is None:
            return
        chosen = self.selection if self.selection is not None and self.selection.key == row.key else None
        draw_document(painter, layout, self._theme, self._visible(painter),
                      offsets=self.code_offsets.get(row.key, {}), selection=chosen)
        draw_code_labels(painter, layout, self._theme, label_font)

    def scroll_code(self, row: ChatRow, layout: RowLayout, box: int, delta: float) -> bool:
        """Scrolls a code box sideways by delta pixels; False when it has nothing to scroll."""
        if box >= len(layout.code_overflow) or layout.code_overflow[box] <= 0:
            return False
        offsets = self.code_offsets.setdefault(row.key, {})
        offsets[box] = clamp_offset(layout, box, offsets.get(box, 0.0) + delta)
        return True

    @staticmethod
    def _visible(painter: QPainter) -> QRectF:
        """The part of the (translated) document inside the viewport, so long documents draw only what shows."""
        clip = painter.clipBoundingRect()
        if clip.isEmpty():
            device = painter.device()
            size = QRectF(0, 0, device.width(), device.height()) if device is not None else QRectF()
            return painter.transform().inverted()[0].mapRect(size)
        return clip

    def _paint_tool(self, painter: QPainter, row: ChatRow, layout: RowLayout, expanded: bool, font: QFont,
                    hovered: bool) -> None:
        t = self._theme
        path = QPainterPath()
        path.addRoundedRect(layout.bubble, 8, 8)
        painter.fillPath(path, QColor(t.code_bg))
        painter.setPen(QPen(QColor(t.accent if hovered else t.border), 1))
        painter.drawPath(path)
        x, y = MARGIN + PAD, layout.bubble.top()
        metrics = QFontMetricsF(font)
        baseline = y + 17 + metrics.ascent() / 2 - 2
        painter.setPen(QColor(t.muted))
        painter.setFont(font)
        painter.drawText(QPointF(x, baseline), "▾" if expanded or layout.doc is not None else "▸")
        bold = QFont(font)
        bold.setWeight(QFont.Weight.DemiBold)
        painter.setFont(bold)
        painter.setPen(QColor(t.muted if row.kind is RowKind.THINKING else t.text))
        name = "Thinking" if row.kind is RowKind.THINKING else f"Tool · {row.tool_name}"
        painter.drawText(QPointF(x + 18, baseline), name)
        status_x = x + 18 + QFontMetricsF(bold).horizontalAdvance(name) + 14
        painter.setFont(_small(font))
        if row.kind is RowKind.THINKING:
            painter.setPen(QColor(t.accent if row.streaming else t.muted))
            status = thinking_status(row)
        elif row.tool_running:
            painter.setPen(QColor(t.accent))
            status = f"running… · {row.tool_progress}" if row.tool_progress else "running…"
        else:
            painter.setPen(QColor(t.error_text if row.tool_error else t.muted))
            status = f"{row.tool_chars or 0:,} chars"
            if row.tool_truncated:
                status += " · truncated when stored (full original kept)"
            if row.tool_error:
                status += " · failed"
        painter.drawText(QPointF(status_x, baseline), status)
        if layout.tiles:
            paint_tiles(painter, layout.tiles, row.attachments, t, font, self.thumbnail)
        if layout.doc is not None:
            self._paint_doc(painter, row, layout, _small(font))
        if layout.doc is not None or any(a.startswith(MCP_ACTIONS) for _, a, _ in layout.hotspots):
            self._paint_links(painter, row, layout, font, always=True, skip=("toggle",))

    def _paint_divider(self, painter: QPainter, row: ChatRow, layout: RowLayout, width: float, font: QFont) -> None:
        draw_divider(painter, QColor(self._theme.divider), row.text, width, font)
        self._paint_links(painter, row, layout, font, always=True)

    def _paint_links(self, painter: QPainter, row: ChatRow, layout: RowLayout, font: QFont, *, always: bool,
                     skip: tuple[str, ...] = ()) -> None:
        small = _small(font)
        metrics = QFontMetricsF(small)
        for rect, action, label in layout.hotspots:
            if not label or action in skip:
                continue
            is_code = action.startswith("copy-code")
            if not (always or is_code or action in ("retry", "open-settings") or action.startswith("branch")):
                continue
            hovered = self._hover == (row.key, action)
            prominent = row.kind in (RowKind.DIVIDER, RowKind.LOAD_OLDER, RowKind.ERROR) or action in (
                "full-output", "retry", "branch-prev", "branch-next") or action.startswith(MCP_ACTIONS)
            color = self._theme.accent if (hovered or prominent) else self._theme.muted
            painter.setPen(QColor(color))
            f = QFont(small)
            f.setUnderline(hovered)
            painter.setFont(f)
            painter.drawText(QPointF(rect.left(), rect.top() + metrics.ascent()), label)

    # --- clicks ------------------------------------------------------------------------------------
    def editorEvent(self, event: QEvent, model: object, option: QStyleOptionViewItem, index: Index) -> bool:
        row = index.data(ROW_ROLE)
        if not isinstance(row, ChatRow) or not isinstance(event, QMouseEvent):
            return False
        rect = QRectF(option.rect)
        layout = self.layout_for(row, self._width(option), bool(index.data(EXPANDED_ROLE)), option.font)
        point = event.position() - rect.topLeft()
        hit = layout.hit(point)
        if event.type() == QEvent.Type.MouseMove:
            hover = (row.key, hit) if hit else None
            if hover != self._hover:  # the pointer shape is the view's TextSelector's job
                self._hover = hover
                widget = option.widget
                if isinstance(widget, QAbstractItemView):
                    widget.viewport().update()
            return False
        if event.type() == QEvent.Type.MouseButtonRelease and event.button() == Qt.MouseButton.LeftButton and hit:
            emit(self.action, hit, row)
            return True
        return False

    def code_of(self, row: ChatRow, action: str, width: float, expanded: bool, font: QFont) -> str | None:
        """The code block text a copy-code action refers to."""
        layout = self.layout_for(row, width, expanded, font)
        try:
            return layout.codes[int(action.split(":", 1)[1])]
        except (IndexError, ValueError):
            return None
