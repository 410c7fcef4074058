"""A compact picker: a button showing the current choice with a drop-down arrow, opening a searchable grouped list."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRect,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QSizePolicy,
    QStyle,
    QStyleOptionButton,
    QVBoxLayout,
    QWidget,
)

from ui.models.picker_items import PickerItem, PickerListModel
from ui.signals import emit
from ui.widgets.picker_delegate import PickerDelegate, draw_arrow

Index = QModelIndex | QPersistentModelIndex
ARROW_W = 22


class PickerPopup(QFrame):
    """A popup list under its button; typing filters it, arrows move, Enter or a click chooses, Esc closes."""

    chosen = Signal(object)

    def __init__(self, parent: QWidget, *, placeholder: str) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("PickerPopup")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.current: object = None
        self.search = QLineEdit(self)
        self.search.setPlaceholderText(placeholder)
        self.search.setClearButtonEnabled(True)
        self.model = PickerListModel()
        self.list = QListView(self)
        self.list.setObjectName("PickerList")
        self.list.setModel(self.model)
        self.list.setItemDelegate(PickerDelegate(self, self))
        self.list.setMouseTracking(True)
        self.list.setUniformItemSizes(False)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(6)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        self.legend = QLabel(self)  # what the marks in the detail column mean (the model picker's capabilities)
        self.legend.setObjectName("Muted")
        self.legend.setWordWrap(True)
        self.legend.hide()
        layout.addWidget(self.legend)
        self.search.textChanged.connect(self._filter)
        self.search.installEventFilter(self)
        self.list.clicked.connect(self._clicked)
        self.list.entered.connect(self._hovered)

    def set_items(self, items: Sequence[PickerItem], current: object, *, searchable: bool) -> None:
        """The rows and which choice is current."""
        self.current = current
        self.model.set_items(items)
        self.search.setVisible(searchable)

    def open_below(self, anchor: QWidget, text: str = "") -> None:
        """Shows the popup under the anchor, filtered by text, with the current choice selected."""
        self.search.setText(text)
        self._filter(text)
        rows = self.model.rowCount()
        row_h = self.list.sizeHintForRow(0) if rows else 24
        width = max(anchor.width(), 340)
        legend = self.legend.heightForWidth(width - 12) + 6 if self.legend.isVisibleTo(self) else 0
        height = min(440 + legend, max(1, rows) * row_h + 16 + legend + (
            self.search.sizeHint().height() + 6 if self.search.isVisibleTo(self) else 0))
        corner = anchor.mapToGlobal(QPoint(0, anchor.height() + 2))
        screen = anchor.screen().availableGeometry() if anchor.screen() is not None else None
        if screen is not None:
            corner.setX(max(screen.left(), min(corner.x(), screen.right() - width)))
        self.setGeometry(QRect(corner, QSize(width, height)))
        self.show()
        if self.search.isVisibleTo(self):
            self.search.setFocus()
        else:
            self.setFocus()

    def set_legend(self, text: str) -> None:
        """A line under the list saying what the detail column's marks mean ('' hides it)."""
        self.legend.setText(text)
        self.legend.setVisible(bool(text))

    def _filter(self, text: str) -> None:
        self.model.set_filter(text)
        row = self.model.row_of(self.current)
        choices = self.model.choice_rows()
        self._select(row if row >= 0 and not text.strip() else (choices[0] if choices else -1))

    def _select(self, row: int) -> None:
        if row < 0:
            self.list.clearSelection()
            return
        index = self.model.index(row)
        self.list.setCurrentIndex(index)
        self.list.scrollTo(index)

    def _move(self, step: int) -> None:
        choices = self.model.choice_rows()
        if not choices:
            return
        now = self.list.currentIndex().row()
        later = [r for r in choices if (r > now if step > 0 else r < now)]
        if later:
            self._select(later[0] if step > 0 else later[-1])

    def _clicked(self, index: QModelIndex) -> None:
        item = self.model.item(index.row())
        if item is not None and not item.header:
            self._choose(item)

    def _hovered(self, index: QModelIndex) -> None:
        item = self.model.item(index.row())
        if item is not None and not item.header:
            self.list.setCurrentIndex(index)

    def _choose(self, item: PickerItem) -> None:
        self.hide()
        emit(self.chosen, item.data)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.search and isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress:
            return self._navigate(event)
        return False

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self._navigate(event):
            super().keyPressEvent(event)

    def _navigate(self, event: QKeyEvent) -> bool:
        """Arrows move between choices (skipping headers), Enter chooses, Esc closes."""
        key = event.key()
        if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
            self._move(1 if key == Qt.Key.Key_Down else -1)
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            item = self.model.item(self.list.currentIndex().row())
            if item is not None and not item.header:
                self._choose(item)
            return True
        if key == Qt.Key.Key_Escape:
            self.hide()
            return True
        return False


class PickerButton(QPushButton):
    """Shows the current choice (elided) and a drop-down arrow; a click or typing opens the popup."""

    chosen = Signal(object)

    def __init__(self, parent: QWidget | None = None, *, placeholder: str = "Search…", min_width: int = 96,
                 searchable_from: int = 8) -> None:
        super().__init__(parent)
        self.setObjectName("Picker")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self._min_width = min_width
        self._searchable_from = searchable_from
        self._items: list[PickerItem] = []
        self._current: object = None
        self.compact_text: str | None = None  # shown instead of an elided text when the full one does not fit
        self.legend = ""  # shown under the list: what the marks in the detail column mean
        self.popup = PickerPopup(self, placeholder=placeholder)
        self.popup.chosen.connect(self._chosen)
        self.clicked.connect(lambda: self.open_popup())

    def set_items(self, items: Sequence[PickerItem], current: object) -> None:
        """The choices and the current one (whose text the button shows)."""
        self._items = list(items)
        self._current = current
        item = next((i for i in self._items if not i.header and i.data == current), None)
        self.setText(item.text if item is not None else "Choose…")
        self.setToolTip(item.tooltip if item is not None and item.tooltip else self.toolTip())
        self.updateGeometry()

    def current(self) -> object:
        """The data of the current choice."""
        return self._current

    def open_popup(self, text: str = "") -> None:
        """Opens the list (filtered by text)."""
        choices = sum(1 for i in self._items if not i.header)
        self.popup.set_items(self._items, self._current, searchable=choices >= self._searchable_from)
        self.popup.set_legend(self.legend)
        self.popup.open_below(self, text)

    def _chosen(self, data: object) -> None:
        if data != self._current:
            emit(self.chosen, data)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        text = event.text()
        if text and text.isprintable() and not text.isspace():
            self.open_popup(text)
            return
        if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.open_popup()
            return
        super().keyPressEvent(event)

    def sizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        return QSize(metrics.horizontalAdvance(self.text()) + 24 + ARROW_W, max(28, metrics.height() + 12))

    def minimumSizeHint(self) -> QSize:
        return QSize(self._min_width, self.sizeHint().height())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        option = QStyleOptionButton()
        self.initStyleOption(option)
        option.text = ""
        self.style().drawControl(QStyle.ControlElement.CE_PushButtonBevel, option, painter, self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        role = self.palette().ColorRole
        color = self.palette().color(role.ButtonText if self.isEnabled() else role.PlaceholderText)
        text_rect = self.rect().adjusted(10, 0, -ARROW_W - 4, 0)
        text = self.text()
        if self.compact_text and self.fontMetrics().horizontalAdvance(text) > text_rect.width():
            text = self.compact_text
        text = self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, text_rect.width())
        painter.setPen(color)
        painter.drawText(text_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)
        draw_arrow(painter, QPointF(self.width() - ARROW_W / 2 - 4, self.height() / 2 + 0.5), color)
        painter.end()
