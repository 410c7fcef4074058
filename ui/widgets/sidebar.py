"""The sessions sidebar: New chat, search (Ctrl+K), the list newest first, rename, archive and delete."""

from __future__ import annotations

import re

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QKeyEvent, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QPushButton,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from domain.ports import MATCH_CLOSE, MATCH_OPEN
from ui.models.session_list import ID_ROLE, SUBTITLE_ROLE, WHEN_ROLE, SessionListModel, rows_for
from ui.signals import emit
from ui.theme import Theme
from ui.viewmodels.sessions import SessionsState, SessionsViewModel

Index = QModelIndex | QPersistentModelIndex
WIDTH = 272


FORK_SUFFIX = " (fork)"


def fork_depth(title: str) -> tuple[str, int]:
    """A title without its " (fork)" suffixes, and how many there were (a fork of a fork: 2)."""
    depth = 0
    while title.endswith(FORK_SUFFIX) and len(title) > len(FORK_SUFFIX):
        title, depth = title[:-len(FORK_SUFFIX)], depth + 1
    return title, depth


def match_runs(snippet: str) -> list[tuple[str, bool]]:
    """A search snippet cut into (text, is_match) runs at its match marks."""
    runs: list[tuple[str, bool]] = []
    for i, part in enumerate(snippet.split(MATCH_OPEN)):
        if i == 0:
            runs.append((part, False))
            continue
        matched, _, rest = part.partition(MATCH_CLOSE)
        runs += [(matched, True), (rest, False)]
    return [(text, matched) for text, matched in runs if text]


class SessionDelegate(QStyledItemDelegate):
    """Title (a fork's "(fork)" as a badge that is never elided), time and a one-line preview (or search snippet,
    its matches highlighted)."""

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.theme = theme

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        metrics = QFontMetrics(option.font)
        return QSize(200, metrics.height() * 2 + 18)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        t = self.theme
        rect: QRect = option.rect.adjusted(6, 2, -6, -2)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        state = option.state
        if state & QStyle.StateFlag.State_Selected:
            painter.setBrush(QColor(t.user_bubble))
        elif state & QStyle.StateFlag.State_MouseOver:
            painter.setBrush(QColor(t.window))
        else:
            painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawRoundedRect(rect, 7, 7)
        font = QFont(option.font)
        metrics = QFontMetrics(font)
        inner = rect.adjusted(10, 7, -10, -7)
        when = str(index.data(WHEN_ROLE) or "")
        small = QFont(font)
        small.setPointSizeF(font.pointSizeF() * 0.86)
        when_w = QFontMetrics(small).horizontalAdvance(when) + 6
        title, depth = fork_depth(str(index.data() or ""))
        badge = ("fork" if depth == 1 else f"fork ×{depth}") if depth else ""
        badge_w = QFontMetrics(small).horizontalAdvance(badge) + 12 if badge else 0
        bold = QFont(font)
        bold.setWeight(QFont.Weight.DemiBold)
        painter.setFont(bold)
        painter.setPen(QColor(t.text))
        room = inner.width() - when_w - (badge_w + 6 if badge else 0)
        title = QFontMetrics(bold).elidedText(title, Qt.TextElideMode.ElideRight, max(0, room))
        painter.drawText(inner.topLeft() + QPoint(0, metrics.ascent()), title)
        if badge:
            left = inner.left() + QFontMetrics(bold).horizontalAdvance(title) + 6
            self._badge(painter, QRect(left, inner.top() + 1, badge_w, metrics.height() - 2), badge, small)
        painter.setFont(small)
        painter.setPen(QColor(t.muted))
        painter.drawText(QPoint(inner.right() - when_w + 6, inner.top() + metrics.ascent()), when)
        subtitle = re.sub(r"\s+", " ", str(index.data(SUBTITLE_ROLE) or ""))
        self._snippet(painter, subtitle, small, inner.left(), inner.top() + metrics.height() + metrics.ascent() + 2,
                      inner.width())
        painter.restore()

    def _badge(self, painter: QPainter, rect: QRect, text: str, font: QFont) -> None:
        """A small rounded label (a fork's) in the accent color."""
        accent = QColor(self.theme.accent)
        fill = QColor(accent)
        fill.setAlpha(40)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
        painter.setFont(font)
        painter.setPen(accent)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    def _snippet(self, painter: QPainter, text: str, font: QFont, x: int, baseline: int, width: int) -> None:
        """A preview or search snippet on one line, each match in bold accent (elided at the end)."""
        runs = match_runs(text) or [("", False)]
        plain = "".join(part for part, _ in runs)
        shown = QFontMetrics(font).elidedText(plain, Qt.TextElideMode.ElideRight, width)
        cut = len(shown) - (1 if shown != plain else 0)  # characters of the text kept before the ellipsis
        strong = QFont(font)
        strong.setWeight(QFont.Weight.Bold)
        for part, matched in runs:
            if cut <= 0:
                break
            piece, cut = part[:cut], cut - len(part)
            used = strong if matched else font
            painter.setFont(used)
            painter.setPen(QColor(self.theme.accent if matched else self.theme.muted))
            painter.drawText(QPoint(x, baseline), piece)
            x += QFontMetrics(used).horizontalAdvance(piece)
        if shown != plain:
            painter.setFont(font)
            painter.setPen(QColor(self.theme.muted))
            painter.drawText(QPoint(x, baseline), "…")


class Sidebar(QWidget):
    """Renders SessionsState and calls the sessions view model's verbs."""

    settings_requested = Signal()
    export_requested = Signal(str, str, str)  # session id, format ("markdown" | "json"), title

    def __init__(self, vm: SessionsViewModel, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Sidebar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setMaximumWidth(WIDTH)  # a preference, not a minimum: a narrow window turns the sidebar into a drawer
        self.setMinimumWidth(0)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._vm = vm
        self.new_button = QPushButton("+  New chat", self)
        self.new_button.setObjectName("PrimaryButton")
        self.new_button.setToolTip("New chat (Ctrl+N)")
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search conversations  (Ctrl+K)")
        self.search.setClearButtonEnabled(True)
        self.model = SessionListModel()
        self.list = QListView(self)
        self.list.setObjectName("SessionList")
        self.list.setModel(self.model)
        self.delegate = SessionDelegate(theme, self.list)
        self.list.setItemDelegate(self.delegate)
        self.list.setMouseTracking(True)
        self.list.setUniformItemSizes(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.empty = QLabel(self)
        self.empty.setObjectName("Muted")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.empty.hide()
        self.settings_button = QPushButton("Settings", self)
        self.archived_button = QPushButton("Archived", self)
        self.archived_button.setCheckable(True)
        self.archived_button.setToolTip("Show the archived conversations (right-click one to unarchive it)")
        self.archived_title = QLabel("Archived conversations", self)
        self.archived_title.setObjectName("Muted")
        self.archived_title.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 12, 10, 10)
        layout.setSpacing(8)
        layout.addWidget(self.new_button)
        layout.addWidget(self.search)
        layout.addWidget(self.archived_title)
        layout.addWidget(self.empty)
        layout.addWidget(self.list, 1)
        bottom = QHBoxLayout()
        bottom.setSpacing(6)
        bottom.addWidget(self.settings_button, 1)
        bottom.addWidget(self.archived_button, 1)
        layout.addLayout(bottom)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(180)
        self._debounce.timeout.connect(lambda: vm.search(self.search.text()))
        self.search.textChanged.connect(lambda _: self._debounce.start())
        self.new_button.clicked.connect(vm.new_chat)
        self.settings_button.clicked.connect(self.settings_requested)
        self.list.clicked.connect(self._clicked)
        self.list.installEventFilter(self)  # Enter opens the current row, as a click does
        self.archived_button.toggled.connect(vm.set_show_archived)
        self.list.customContextMenuRequested.connect(self._menu)
        vm.state_changed.connect(self.show_state)

    def sizeHint(self) -> QSize:
        return QSize(WIDTH, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def set_theme(self, theme: Theme) -> None:
        """New colors."""
        self.delegate.theme = theme
        self.list.viewport().update()

    def show_state(self, state: SessionsState) -> None:
        """Shows sessions (or hits) and the selection."""
        hits = state.listed_hits
        self.model.set_rows(rows_for(state.listed, hits))
        if hits is not None and not hits:
            self.empty.setText(f"No conversation mentions “{state.query}”.")
        elif state.hits is None and not state.listed and not state.loading:
            self.empty.setText("No archived conversations." if state.show_archived
                               else "No conversations yet. Start one with New chat (Ctrl+N).")
        else:
            self.empty.setText("")
        self.empty.setVisible(bool(self.empty.text()))
        self.archived_title.setVisible(state.show_archived and state.hits is None)
        if self.archived_button.isChecked() != state.show_archived:
            self.archived_button.setChecked(state.show_archived)
        self.archived_button.setText("‹ Conversations" if state.show_archived else "Archived")
        row = self.model.row_of(state.selected_id)
        if row >= 0:
            self.list.setCurrentIndex(self.model.index(row))
        else:
            self.list.clearSelection()

    def focus_search(self) -> None:
        """Ctrl+K."""
        self.search.setFocus()
        self.search.selectAll()

    def _menu(self, point: QPoint) -> None:
        index = self.list.indexAt(point)
        if index.isValid():
            self.menu_for(str(index.data(ID_ROLE)), str(index.data())).exec(self.list.viewport().mapToGlobal(point))

    def menu_for(self, session_id: str, title: str) -> QMenu:
        """A session's context menu: rename, export, archive (unarchive in the archived list), delete."""
        menu = QMenu(self)
        menu.addAction("Rename…", lambda: self._rename(session_id, title))
        menu.addAction("Export as Markdown…", lambda: emit(self.export_requested, session_id, "markdown", title))
        menu.addAction("Export as JSON…", lambda: emit(self.export_requested, session_id, "json", title))
        state = self._vm.state
        hit = next((h for h in state.hits or () if h.session_id == session_id), None)
        if (hit.archived if hit is not None else state.show_archived):
            menu.addAction("Unarchive", lambda: self._vm.archive(session_id, archived=False))
        else:
            menu.addAction("Archive", lambda: self._vm.archive(session_id))
        menu.addAction("Delete", lambda: self._vm.delete(session_id))
        return menu

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is self.list and isinstance(event, QKeyEvent)
                and event.type() == QEvent.Type.KeyPress and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)):
            index = self.list.currentIndex()
            if index.isValid():
                self._clicked(index)
                return True
        return super().eventFilter(watched, event)

    def _clicked(self, index: QModelIndex) -> None:
        hits = self._vm.state.listed_hits
        if hits is not None and 0 <= index.row() < len(hits):
            self._vm.open_hit(hits[index.row()])  # at the matching message
        else:
            self._vm.select(str(index.data(ID_ROLE)))

    def _rename(self, session_id: str, title: str) -> None:
        text, ok = QInputDialog.getText(self, "Rename conversation", "Title:", QLineEdit.EchoMode.Normal, title)
        if ok:
            self._vm.rename(session_id, text)
