"""Settings › Tools › MCP servers: each server with its sampling rule, its folders (roots), its tools and each tool's
rule; add, refresh, remove, open log, add or remove a folder."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from domain.mcp import McpServer, ToolPermission
from ui.viewmodels.settings import SettingsState, SettingsViewModel
from ui.widgets.key_values import KeyValueEditor

EXPLANATION = (
    "Tools of Model Context Protocol servers, offered to the model as server__tool. Every tool asks before it runs "
    "(you see its arguments; Allow once, Always or Deny) unless you set it to allow; deny hides it from the model."
)
RULES = tuple(p.value for p in ToolPermission)
SERVER_ROLE = Qt.ItemDataRole.UserRole
ROOT_ROLE = Qt.ItemDataRole.UserRole + 1  # a folder row: its path
SAMPLING = ("sampling: ask", "sampling: allow")  # the server row's box: its requests to use your model


class McpSection(QWidget):
    """Lists the servers and their tools; a rule changed in a tool's box is stored at once."""

    def __init__(self, vm: SettingsViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self._shown: tuple[McpServer, ...] | None = None
        self._logs: dict[str, str] = {}
        self._remote: set[str] = set()  # the servers reached by URL (they may need a sign-in)
        self._signing_in = False
        title = QLabel("MCP servers", self)
        title.setObjectName("CardTitle")
        explanation = QLabel(EXPLANATION, self)
        explanation.setWordWrap(True)
        explanation.setObjectName("Muted")
        self.tree = QTreeWidget(self)
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels(["Server / tool", "Rule", "Description"])
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.tree.itemSelectionChanged.connect(self._selection_changed)
        self.tree.setMinimumHeight(170)
        self._row_height = QComboBox().sizeHint().height() + 2
        self.refresh = QPushButton("Refresh tools", self)
        self.remove = QPushButton("Remove", self)
        self.open_log = QPushButton("Open log", self)
        self.add_root = QPushButton("Add folder…", self)
        self.add_root.setToolTip("A folder the selected server may use (told to it as a root)")
        self.remove_root = QPushButton("Remove folder", self)
        self.choose_folder: Callable[[], str | None] = self._choose_folder  # replaceable in tests
        self.add_root.clicked.connect(self._add_root)
        self.remove_root.clicked.connect(self._remove_root)
        self.sign_in = QPushButton("Sign in…", self)
        self.sign_in.setToolTip("Sign in to the selected remote server in your browser")
        self.sign_in.clicked.connect(self._sign_in)
        self.open_url: Callable[[str], object] = lambda url: QDesktopServices.openUrl(QUrl(url))  # tests: a browser
        self._needs_sign_in: tuple[str, str | None] | None = None
        self.refresh.clicked.connect(lambda: self._on_selected(vm.refresh_mcp_tools))
        self.remove.clicked.connect(lambda: self._on_selected(vm.remove_mcp_server))
        self.open_log.clicked.connect(self._open_log)
        self.name = QLineEdit(self)
        self.name.setPlaceholderText("name")
        self.name.setMaximumWidth(140)
        self.target = QLineEdit(self)
        self.target.setPlaceholderText("command line (npx -y @scope/server /path)  or  https://example.com/mcp")
        self.values = KeyValueEditor(self)
        self.target.textChanged.connect(lambda text: self.values.set_headers(_is_url(text)))
        self.add = QPushButton("Add server", self)
        self.add.clicked.connect(lambda: vm.add_mcp_server(self.name.text(), self.target.text(), self.values.values()))
        actions = QHBoxLayout()
        for button in (self.refresh, self.remove, self.open_log, self.add_root, self.remove_root, self.sign_in):
            actions.addWidget(button)
        actions.addStretch(1)
        adding = QHBoxLayout()
        adding.addWidget(self.name)
        adding.addWidget(self.target, 1)
        adding.addWidget(self.add)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(title)
        layout.addWidget(explanation)
        layout.addWidget(self.tree, 1)
        layout.addSpacing(2)
        layout.addLayout(actions)
        layout.addLayout(adding)
        layout.addWidget(self.values)
        self._selection_changed()

    def show_state(self, state: SettingsState) -> None:
        """Rebuilds the list when the servers change; buttons follow the busy state."""
        busy = "mcp" in state.busy
        self.add.setEnabled(not busy)
        self._needs_sign_in = state.mcp_sign_in
        self._signing_in = "mcp-sign-in" in state.busy
        self.sign_in.setText("Cancel sign-in" if self._signing_in else "Sign in…")
        self.sign_in.setToolTip("Stop waiting for the browser" if self._signing_in
                                else "Sign in to the selected remote server in your browser")
        self._logs = dict(state.mcp_logs)
        self._remote = {server.name for server in state.mcp_servers if server.url}
        if state.mcp_servers != self._shown:
            added = {s.name for s in state.mcp_servers} - {s.name for s in self._shown or ()}
            if self.name.text().strip() in added:  # the form's server was stored: empty the form and its values
                self.name.clear()
                self.target.clear()
                self.values.clear()
            self._shown = state.mcp_servers
            self._rebuild(state.mcp_servers)
        self._selection_changed(busy)

    def selected_server(self) -> str | None:
        """The name of the server whose row (or one of whose tools) is selected."""
        items = self.tree.selectedItems()
        if not items:
            return None
        item = items[0].parent() or items[0]
        name = item.data(0, SERVER_ROLE)
        return str(name) if name else None

    def _rebuild(self, servers: tuple[McpServer, ...]) -> None:
        selected = self.selected_server()
        self.tree.clear()
        for server in servers:
            count = len(server.tools)
            top = QTreeWidgetItem([server.name, "", f"{server.transport.value}: {server.describe()} · {count} tools"])
            top.setData(0, SERVER_ROLE, server.name)
            top.setToolTip(2, server.describe())
            top.setSizeHint(1, QSize(130, self._row_height))
            self.tree.addTopLevelItem(top)
            self.tree.setItemWidget(top, 1, self._sampling_box(server))
            for root in server.roots:
                folder = QTreeWidgetItem(["folder", "", root])
                folder.setData(0, ROOT_ROLE, root)
                folder.setToolTip(2, "The server may use this folder (a root)")
                top.addChild(folder)
            for tool in server.tools:
                child = QTreeWidgetItem([tool.name, "", " ".join(tool.description.split())])
                child.setToolTip(2, tool.description)
                child.setSizeHint(1, QSize(90, self._row_height))
                top.addChild(child)
                self.tree.setItemWidget(child, 1, self._rule_box(server, tool.name))
            top.setExpanded(True)
            if server.name == selected:
                top.setSelected(True)

    def _rule_box(self, server: McpServer, tool: str) -> QComboBox:
        box = QComboBox(self.tree)
        box.addItems(RULES)
        box.setCurrentText(server.permission(tool).value)
        box.setAccessibleName(f"Rule of {tool}")
        box.currentTextChanged.connect(lambda rule: self._vm.set_mcp_tool_permission(server.name, tool, rule))
        return box

    def _sampling_box(self, server: McpServer) -> QComboBox:
        box = QComboBox(self.tree)
        box.addItems(SAMPLING)
        box.setCurrentIndex(1 if server.sampling_always else 0)
        box.setAccessibleName(f"Sampling rule of {server.name}")
        box.setToolTip("ask: each request to use your model is shown with its cost first; allow: run without asking")
        box.currentIndexChanged.connect(
            lambda index: self._vm.set_mcp_sampling(server.name, "allow" if index == 1 else "ask"))
        return box

    def selected_root(self) -> str | None:
        """The folder whose row is selected."""
        items = self.tree.selectedItems()
        root = items[0].data(0, ROOT_ROLE) if items else None
        return str(root) if root else None

    def _add_root(self) -> None:
        name = self.selected_server()
        folder = self.choose_folder() if name is not None else None
        if name is not None and folder:
            self._vm.add_mcp_root(name, folder)

    def _remove_root(self) -> None:
        name, root = self.selected_server(), self.selected_root()
        if name is not None and root is not None:
            self._vm.remove_mcp_root(name, root)

    def _choose_folder(self) -> str | None:
        return QFileDialog.getExistingDirectory(self, "A folder the server may use") or None

    def _selection_changed(self, busy: bool = False) -> None:
        name = self.selected_server()
        for button in (self.refresh, self.remove, self.add_root):
            button.setEnabled(name is not None and not busy)
        self.remove_root.setEnabled(self.selected_root() is not None and not busy)
        self.open_log.setEnabled(name is not None and name in self._logs)
        remote = self._needs_sign_in is not None or (name is not None and name in self._remote)
        self.sign_in.setEnabled(self._signing_in or (remote and not busy))
        if self._needs_sign_in is not None:
            self.sign_in.setDefault(True)

    def _sign_in(self) -> None:
        """Signs in to the server that asked for it, else to the selected remote one; while waiting, cancels."""
        if self._signing_in:
            self._vm.cancel_mcp_sign_in()
            return
        name = self._needs_sign_in[0] if self._needs_sign_in is not None else self.selected_server()
        if name is not None:
            self._vm.sign_in_mcp_server(name, self.open_url)

    def _on_selected(self, verb: object) -> None:
        name = self.selected_server()
        if name is not None and callable(verb):
            verb(name)

    def _open_log(self) -> None:
        name = self.selected_server()
        if name is not None and name in self._logs:
            QDesktopServices.openUrl(QUrl.fromLocalFile(self._logs[name]))


def _is_url(target: str) -> bool:
    return target.strip().startswith(("http://", "https://"))
