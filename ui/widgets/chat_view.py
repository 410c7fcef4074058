"""The virtualized chat list: a QListView over MessageListModel, sticky to the bottom while replies stream."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QPoint, QPointF, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QDesktopServices,
    QFocusEvent,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QAbstractItemView, QListView, QMenu, QWidget

from ui.math_images import math_images
from ui.models.chat_rows import ChatRow, RowKind
from ui.models.message_list import EXPANDED_ROLE, ROW_ROLE
from ui.signals import emit
from ui.theme import Theme
from ui.viewmodels.chat import ChatViewModel
from ui.widgets.chat_actions import run_row_action
from ui.widgets.chat_follow import ChatFollow
from ui.widgets.chat_keyboard import ChatKeyboard
from ui.widgets.doc_painter import box_at
from ui.widgets.jump_latest import JumpToLatest
from ui.widgets.message_delegate import MessageDelegate
from ui.widgets.row_sizer import layout_width
from ui.widgets.text_selection import TextSelector


class ChatView(QListView):
    """Shows the rows; handles the delegate's actions by calling view-model verbs."""

    summary_requested = Signal(bool)  # True: edit, False: read
    settings_requested = Signal(str)  # an error row's fix: the Settings page to open
    model_picker_requested = Signal()  # an error row's fix: another model, from the header's picker
    copied = Signal(str)  # a sentence for the snackbar
    typed = Signal(str)  # text typed while the list had focus (after selecting), for the composer

    def __init__(self, vm: ChatViewModel, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self.setObjectName("ChatList")
        self.delegate = MessageDelegate(theme, self)
        self.keyboard = ChatKeyboard(self, vm.model)
        self.setModel(vm.model)
        self.setItemDelegate(self.delegate)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        # Qt scrolls a pressed row into view a moment after the press; a tall reply would jump to its top under the
        # pointer (Copy code, a link). The view scrolls itself (following replies, search hits, dragging a selection).
        self.setAutoScroll(False)
        self.verticalScrollBar().setSingleStep(24)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # Tab reaches the messages; a click leaves the composer focused
        self.setAccessibleName("Messages")
        self.setMouseTracking(True)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setUniformItemSizes(False)
        self.setSpacing(0)
        self.follow = ChatFollow(self, vm, self.delegate)  # where the list stands as its rows change
        model = vm.model
        model.dataChanged.connect(self._data_changed)
        self.delegate.action.connect(self._on_action)
        math_images().ready.connect(self._math_ready)  # formula images arrived: their rows take their heights
        self.open_url: Callable[[QUrl], object] = QDesktopServices.openUrl  # replaced in tests
        self.selector = TextSelector(self, self.delegate, model)
        vm.focus.connect(lambda message_id: QTimer.singleShot(0, lambda: self.show_message(message_id)))
        self.jump = JumpToLatest(vm, self)  # a window around a search hit, or new messages below a view scrolled up
        vm.state_changed.connect(self.follow.turn_began)

    @property
    def _focused(self) -> str | None:
        """The search hit held in view, if any."""
        return self.follow.focused

    def show_message(self, message_id: str) -> bool:
        """Scrolls a message to the middle of the view and frames it briefly; False when it is not shown."""
        return self.follow.show_message(message_id)

    def highlight(self, message_id: str | None) -> None:
        """Frames a message's rows (None: none; a held search hit stays held)."""
        self.follow.highlight(message_id)

    @property
    def vm(self) -> ChatViewModel:
        """The chat view model this view shows and acts through."""
        return self._vm

    def set_theme(self, theme: Theme) -> None:
        """Repaints in new colors."""
        self.delegate.set_theme(theme)
        self.scheduleDelayedItemsLayout()

    def _data_changed(self, top: QModelIndex, bottom: QModelIndex, roles: list[int]) -> None:
        """A row opened or closed (a tool card, a reasoning section) changes height: the rows below move with it
        (QListView lays rows out again only when told a size changed, not on a data change)."""
        if EXPANDED_ROLE in roles:
            for position in range(top.row(), bottom.row() + 1):
                emit(self.delegate.sizeHintChanged, self._vm.model.index(position))
        self.follow.keep_up()

    def _math_ready(self) -> None:
        """Formula images arrived: the rows showing their source take the images' heights."""
        model = self._vm.model
        for key in self.delegate.math_arrived():
            position = model.position(key)
            if position is not None:
                emit(self.delegate.sizeHintChanged, model.index(position))
        self.viewport().update()

    def wheelEvent(self, event: QWheelEvent) -> None:
        """A sideways wheel (or Shift+wheel) over a code box too wide for the bubble scrolls that box."""
        self.follow.release()  # the user scrolls away from a search hit: the view stops holding on to it
        dx = event.pixelDelta().x() or event.angleDelta().x() / 2
        if not dx and event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            dx = event.pixelDelta().y() or event.angleDelta().y() / 2
        if dx and self.scroll_code_at(event.position(), -float(dx)):
            event.accept()
            return
        super().wheelEvent(event)

    def scroll_code_at(self, point: QPointF, delta: float) -> bool:
        """Scrolls the code box under a viewport point sideways; False when there is none to scroll."""
        index = self.indexAt(point.toPoint())
        row = self._vm.model.row_at(index.row()) if index.isValid() else None
        if row is None:
            return False
        rect = self.visualRect(index)
        layout = self.delegate.layout_for(row, layout_width(self), self._vm.model.is_expanded(row.key),
                                          self.font())
        box = box_at(layout, point - QPointF(rect.topLeft()))
        if box is None or not self.delegate.scroll_code(row, layout, box, delta):
            return False
        self.viewport().update(rect)
        return True

    # --- selecting text, links, the context menu ---------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:
        if not self.selector.press(event):
            super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if not self.selector.move(event):
            super().mouseMoveEvent(event)
            self.selector.hover(event.position())

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if not self.selector.release(event):
            super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if not self.selector.double_click(event):
            super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        if not self._menu_at(event.pos(), event.globalPos()):
            super().contextMenuEvent(event)

    def _menu_at(self, pos: QPoint, global_pos: QPoint) -> bool:
        """Shows the context menu of the row at a viewport point; False when it has none."""
        menu = self.selector.menu_for(pos)
        row = self.indexAt(pos).data(ROW_ROLE)
        if isinstance(row, ChatRow) and row.message_id and row.kind in (RowKind.USER, RowKind.ASSISTANT):
            menu = menu or QMenu(self)
            menu.addSeparator()
            message_id = row.message_id
            menu.addAction("Fork into a new session", lambda: self._vm.fork(message_id))
            if row.branch[1] > 1:
                menu.addAction("Delete this branch", lambda: self._vm.delete_branch(message_id))
        if menu is None:
            return False
        menu.exec(global_pos)
        menu.deleteLater()
        return True

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) and self.keyboard.wants(event):
            event.accept()  # Escape leaves the action line, not the turn
            return True
        return super().event(event)

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.keyboard.focus_in()

    def currentChanged(self, current: QModelIndex | QPersistentModelIndex,
                       previous: QModelIndex | QPersistentModelIndex) -> None:
        super().currentChanged(current, previous)
        self.keyboard.current_changed()

    def run_action(self, action: str, row: ChatRow) -> None:
        """Runs one of a row's actions as a click on it would (the keyboard's Enter)."""
        self._on_action(action, row)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self.keyboard.key(event):
            return
        menu_key = event.key() == Qt.Key.Key_Menu or (
            event.key() == Qt.Key.Key_F10 and event.modifiers() == Qt.KeyboardModifier.ShiftModifier)
        if menu_key and self.currentIndex().isValid():  # the focused message's menu (Fork, Copy as Markdown, …)
            spot = self.visualRect(self.currentIndex()).intersected(self.viewport().rect()).center()
            self._menu_at(spot, self.viewport().mapToGlobal(spot))
            return
        if event.matches(QKeySequence.StandardKey.Copy):
            if self.selector.copy():
                emit(self.copied, "Copied.")
            return
        chosen = self.selector.selection()
        if event.matches(QKeySequence.StandardKey.SelectAll) and chosen is not None:
            self.selector.select_all(chosen.key)
            return
        text = event.text()
        plain = not event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
        if plain and text and text.isprintable():
            emit(self.typed, text)
            return
        super().keyPressEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.follow.resized()

    # --- actions -----------------------------------------------------------------------------------
    def _on_action(self, action: str, row: ChatRow) -> None:
        run_row_action(self, action, row)
