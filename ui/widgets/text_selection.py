"""Selecting text in the painted chat rows: drag and double-click selection, copying, the context menu and links."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QObject, QPoint, QPointF, QRectF, QSizeF, Qt, QUrl
from PySide6.QtGui import QGuiApplication, QMouseEvent, QTextCursor
from PySide6.QtWidgets import QListView, QMenu, QToolTip

from ui.markdown_links import citation_target
from ui.markdown_sources import source_number
from ui.models.chat_rows import ChatRow
from ui.models.message_list import MessageListModel
from ui.widgets.doc_painter import TextRange, box_at, clamp_offset, doc_point, scrollbar_rect
from ui.widgets.message_delegate import MessageDelegate
from ui.widgets.row_layout import RowLayout
from ui.widgets.row_sizer import layout_width
from ui.widgets.selection_text import is_web_link, message_markdown, selected_text
from ui.widgets.text_menu import text_menu


@dataclass(frozen=True)
class Hit:
    """What lies under a viewport point: the row, its layout, and the text position, link or action there."""

    row: ChatRow
    layout: RowLayout
    origin: QPointF  # the row's top-left, in viewport coordinates
    action: str | None
    position: int | None  # document position under the point (None outside the text)
    link: str
    scrollbar: int | None  # the code box whose scroll indicator is under the point


class TextSelector(QObject):
    """Turns mouse and key events on the chat list into a selection in one row, copies, menus and link opens."""

    def __init__(self, view: QListView, delegate: MessageDelegate, model: MessageListModel) -> None:
        super().__init__(view)
        self._view = view
        self._delegate = delegate
        self._model = model
        self._press: tuple[str, int, str, QPointF] | None = None  # row key, anchor, link pressed, point
        self._dragged = False
        self._code_drag: tuple[str, int, float, float] | None = None  # row key, box, start x, start offset
        self._tip = ""

    # --- hit testing ---------------------------------------------------------------------------------
    def hit(self, point: QPointF) -> Hit | None:
        """What is under a viewport point."""
        index = self._view.indexAt(point.toPoint())
        return self._hit_row(index, point) if index.isValid() else None

    def _layout(self, index: QModelIndex) -> tuple[ChatRow, RowLayout, QPointF] | None:
        row = self._model.row_at(index.row())
        if row is None:
            return None
        width = layout_width(self._view)
        layout = self._delegate.layout_for(row, width, self._model.is_expanded(row.key), self._view.font())
        return row, layout, QPointF(self._view.visualRect(index).topLeft())

    def _hit_row(self, index: QModelIndex, point: QPointF) -> Hit | None:
        found = self._layout(index)
        if found is None:
            return None
        row, layout, origin = found
        local = point - origin
        action = layout.hit(local)
        position, link, scrollbar = None, "", None
        doc = layout.doc
        if doc is not None and action is None:
            box = box_at(layout, local)
            offsets = self._delegate.code_offsets.get(row.key, {})
            if box is not None and layout.code_overflow[box] > 0:
                track, _ = scrollbar_rect(layout, box, clamp_offset(layout, box, offsets.get(box, 0.0)))
                if track.adjusted(0, -4, 0, 4).contains(local):
                    scrollbar = box
            area = QRectF(layout.doc_pos, QSizeF(doc.textWidth(), doc.size().height()))
            if scrollbar is None and area.contains(local):
                at = doc_point(layout, local, offsets)
                position = doc.documentLayout().hitTest(at, Qt.HitTestAccuracy.FuzzyHit)
                link = doc.documentLayout().anchorAt(at)
        return Hit(row, layout, origin, action, position, link, scrollbar)

    def _position_in(self, key: str, point: QPointF) -> int | None:
        """The document position nearest a point, within the row being selected (even when dragged past it)."""
        row_index = self._model.position(key)
        if row_index is None:
            return None
        found = self._layout(self._model.index(row_index))
        if found is None or found[1].doc is None:
            return None
        row, layout, origin = found
        doc = layout.doc
        assert doc is not None
        local = point - origin
        if local.y() < layout.doc_pos.y():
            return 0
        if local.y() > layout.doc_pos.y() + doc.size().height():
            return doc.characterCount() - 1
        at = doc_point(layout, local, self._delegate.code_offsets.get(row.key, {}))
        return doc.documentLayout().hitTest(at, Qt.HitTestAccuracy.FuzzyHit)

    # --- mouse ---------------------------------------------------------------------------------------
    def press(self, event: QMouseEvent) -> bool:
        """Starts a selection (or a code box scroll drag); True when the event was used."""
        if event.button() != Qt.MouseButton.LeftButton:
            return False
        hit = self.hit(event.position())
        if hit is not None and hit.scrollbar is not None:
            offset = self._delegate.code_offsets.get(hit.row.key, {}).get(hit.scrollbar, 0.0)
            self._code_drag = (hit.row.key, hit.scrollbar, event.position().x(), offset)
            return True
        if hit is None or hit.position is None:
            self.set_selection(None)
            return False
        self._press = (hit.row.key, hit.position, hit.link, event.position())
        self._dragged = False
        self.set_selection(TextRange(hit.row.key, hit.position, hit.position))
        self._view.setFocus(Qt.FocusReason.MouseFocusReason)
        return True

    def move(self, event: QMouseEvent) -> bool:
        """Extends the selection (or scrolls a code box) while the button is held; False otherwise."""
        point = event.position()
        if self._code_drag is not None:
            key, box, start_x, start_offset = self._code_drag
            position = self._model.position(key)
            if position is not None:
                found = self._layout(self._model.index(position))
                if found is not None:
                    row, layout, _ = found
                    _, thumb = scrollbar_rect(layout, box, 0.0)
                    track_w = layout.code_rects[box].width() - 12 - thumb.width()
                    ratio = layout.code_overflow[box] / track_w if track_w > 0 else 0.0
                    wanted = start_offset + (point.x() - start_x) * ratio
                    self._delegate.scroll_code(row, layout, box, wanted - self._offset(key, box))
                    self._view.viewport().update()
            return True
        if self._press is not None and event.buttons() & Qt.MouseButton.LeftButton:
            key, anchor, _, start = self._press
            if (point - start).manhattanLength() > 3:
                self._dragged = True
            position = self._position_in(key, point)
            if position is not None:
                self.set_selection(TextRange(key, anchor, position))
            self._autoscroll(point)
            return True
        return False

    def _offset(self, key: str, box: int) -> float:
        return self._delegate.code_offsets.get(key, {}).get(box, 0.0)

    def release(self, event: QMouseEvent) -> bool:
        """Ends a selection; a click (no drag) on a link opens it."""
        if self._code_drag is not None and event.button() == Qt.MouseButton.LeftButton:
            self._code_drag = None
            return True
        if self._press is None or event.button() != Qt.MouseButton.LeftButton:
            return False
        key, _, link, _ = self._press
        self._press = None
        if not self._dragged:
            self.set_selection(None)
            if link:
                self.open_link(link, key)
        return True

    def double_click(self, event: QMouseEvent) -> bool:
        """Selects the word under the pointer."""
        hit = self.hit(event.position())
        if hit is None or hit.position is None or hit.layout.doc is None or hit.link:
            return False
        cursor = QTextCursor(hit.layout.doc)
        cursor.setPosition(hit.position)
        cursor.select(QTextCursor.SelectionType.WordUnderCursor)
        self.set_selection(TextRange(hit.row.key, cursor.anchor(), cursor.position()))
        self._press = None
        return True

    def hover(self, point: QPointF) -> None:
        """Sets the pointer (I-beam over text, a hand over links and actions) and shows a link's URL."""
        hit = self.hit(point)
        shape = Qt.CursorShape.ArrowCursor
        tip = ""
        if hit is not None:
            if hit.action is not None or hit.scrollbar is not None:
                shape = Qt.CursorShape.PointingHandCursor
            elif hit.link:
                shape = Qt.CursorShape.PointingHandCursor
                tip = hit.link if is_web_link(hit.link) else f"{hit.link} (only http and https links open)"
            elif hit.position is not None:
                shape = Qt.CursorShape.IBeamCursor
        viewport = self._view.viewport()
        if viewport.cursor().shape() != shape:
            viewport.setCursor(shape)
        if tip != self._tip:
            self._tip = tip
            if tip:
                QToolTip.showText(viewport.mapToGlobal(point.toPoint()), tip, viewport)
            else:
                QToolTip.hideText()

    def hover_link(self) -> str:
        """The link the pointer shows now ('' when none)."""
        return self._tip

    def _autoscroll(self, point: QPointF) -> None:
        bar = self._view.verticalScrollBar()
        height = self._view.viewport().height()
        if point.y() < 0:
            bar.setValue(bar.value() + int(point.y()))
        elif point.y() > height:
            bar.setValue(bar.value() + int(point.y() - height))

    # --- the selection ---------------------------------------------------------------------------------
    def selection(self) -> TextRange | None:
        """The selected range (None when nothing is selected)."""
        return self._delegate.selection

    def set_selection(self, chosen: TextRange | None) -> None:
        """Selects a range of one row (None clears) and repaints."""
        if chosen != self._delegate.selection:
            self._delegate.selection = chosen
            self._view.viewport().update()

    def select_all(self, key: str) -> None:
        """Selects a row's whole text."""
        found = self._found(key)
        if found is not None and found[1].doc is not None:
            self.set_selection(TextRange(key, 0, found[1].doc.characterCount() - 1))

    def _found(self, key: str) -> tuple[ChatRow, RowLayout, QPointF] | None:
        position = self._model.position(key)
        return self._layout(self._model.index(position)) if position is not None else None

    def text(self, *, markdown: bool = False) -> str:
        """The selected text ('' when nothing is selected); the whole message's source when all of it is."""
        chosen = self._delegate.selection
        if chosen is None or chosen.start == chosen.end:
            return ""
        found = self._found(chosen.key)
        if found is None:
            return ""
        row, layout, _ = found
        if markdown and layout.doc is not None and chosen.start == 0 and chosen.end >= layout.doc.characterCount() - 1:
            return message_markdown(row, layout)
        return selected_text(layout, chosen, markdown=markdown)

    def copy(self, *, markdown: bool = False) -> bool:
        """Copies the selection to the clipboard; False when nothing is selected."""
        text = self.text(markdown=markdown)
        if not text:
            return False
        QGuiApplication.clipboard().setText(text)
        return True

    # --- links and the menu ----------------------------------------------------------------------------
    def open_link(self, href: str, key: str | None = None) -> bool:
        """Opens an http(s) link with the view's opener, a page citation with its `open_citation`, a source's
        superscript (in row `key`) by picking out its line in the sources list; anything else is refused (False)."""
        number = source_number(href)
        if number is not None:
            return key is not None and self.show_source(key, number)
        cited = citation_target(href)  # a page citation: the document opens at that page
        if cited is not None:
            open_page = getattr(self._view, "open_citation", None)
            return bool(open_page(*cited)) if open_page is not None else False
        opener = getattr(self._view, "open_url", None)
        if not is_web_link(href) or opener is None:
            return False
        opener(QUrl(href))
        return True

    def show_source(self, key: str, number: int) -> bool:
        """Selects line `number` of the sources list under row `key` and scrolls it into view (False: no such line)."""
        position = self._model.position(key)
        found = self._layout(self._model.index(position)) if position is not None else None
        doc = found[1].doc if found is not None else None
        if doc is None or position is None:
            return False
        block = doc.lastBlock()
        while block.isValid() and block.textList() is None:
            block = block.previous()
        listed = block.textList() if block.isValid() else None
        if listed is None or not 0 < number <= listed.count():
            return False
        line = listed.item(number - 1)
        self.set_selection(TextRange(key, line.position(), line.position() + len(line.text())))
        self._view.scrollTo(self._model.index(position), QListView.ScrollHint.PositionAtBottom)
        return True

    def menu_for(self, point: QPoint) -> QMenu | None:
        """The context menu for a viewport point over a message's text (Copy, Copy as Markdown, Select all, links)."""
        hit = self.hit(QPointF(point))
        if hit is None or hit.layout.doc is None:
            return None
        chosen = self._delegate.selection
        has_selection = chosen is not None and chosen.key == hit.row.key and chosen.start != chosen.end
        return text_menu(self, self._view, hit, has_selection)
