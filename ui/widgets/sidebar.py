"""The sessions sidebar: New chat, search (Ctrl+K), the list newest first, rename, archive and delete."""

from __future__ import annotations

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPoint,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QKeyEvent
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
    QVBoxLayout,
    QWidget,
)

from ui.models.session_list import ID_ROLE, SessionListModel, rows_for
from ui.signals import emit
from ui.theme import Theme
from ui.viewmodels.sessions import SessionsState, SessionsViewModel
from ui.widgets.session_delegate import SessionDelegate

WIDTH = 272




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
