"""Settings › Tools: MCP servers and their tools' rules, and the hosts on this computer or the local network that
http_request may reach, one per line."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from domain.settings import ToolSettings
from ui.viewmodels.settings import SettingsState, SettingsViewModel
from ui.widgets.settings_mcp import McpSection

EXPLANATION = (
    "The http_request tool reaches public internet addresses only. Addresses on this computer and your local "
    "network are refused — loopback (localhost, 127.0.0.1, ::1), private (10.x, 172.16–31.x, 192.168.x, fd00::/8) "
    "and link-local (169.254.x, where cloud metadata services live) — unless you list them here, so a model cannot "
    "be talked into probing your router, your NAS or a local admin page."
)
FORMAT = (
    "One per line: a host name (nas.lan), an IP address (192.168.1.20) or a network (192.168.1.0/24). "
    "Every port of a listed host is allowed. Hosts in the environment variable PALIMPSEST_TOOL_ALLOW_HOSTS are "
    "allowed as well."
)
CONFIRMATION = (
    "Requests other than GET and HEAD (POST, PUT, PATCH, DELETE, OPTIONS) are never sent without asking: you see "
    "the method, URL, headers and body first, and decide each time, whatever the host."
)


class ToolsPage(QWidget):
    """The MCP servers (McpSection) above the allowed hosts; Save hands the hosts' text to the view model, which
    reports a bad entry as the error. The page scrolls when it is taller than the dialog, so no control is ever
    squeezed over another (wrapped explanations and added variable rows make it tall)."""

    def __init__(self, vm: SettingsViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self.area = QScrollArea(self)
        self.area.setWidgetResizable(True)
        self.area.setFrameShape(QFrame.Shape.NoFrame)
        self.area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget(self.area)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.area)
        self._shown: ToolSettings | None = None
        self.mcp = McpSection(vm, self)
        title = QLabel("Allowed hosts on your machine or network", self)
        title.setObjectName("CardTitle")
        explanation = _wrapped(EXPLANATION, self)
        self.hosts = QPlainTextEdit(self)
        self.hosts.setPlaceholderText("localhost\n192.168.1.20\nnas.lan\n10.0.0.0/8")
        self.hosts.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.hosts.setTabChangesFocus(True)
        self.hosts.setFixedHeight(self.hosts.fontMetrics().lineSpacing() * 4 + 20)
        hint = _wrapped(FORMAT, self)
        hint.setObjectName("Muted")
        confirmation = _wrapped(CONFIRMATION, self)
        confirmation.setObjectName("Muted")
        self.save = QPushButton("Save", self)
        self.save.clicked.connect(lambda: vm.save_allowed_hosts(self.hosts.toPlainText()))
        buttons = QHBoxLayout()
        buttons.addWidget(self.hosts, 1)
        buttons.addWidget(self.save, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(body)
        layout.addWidget(self.mcp, 1)
        layout.addSpacing(8)
        layout.addWidget(title)
        layout.addWidget(explanation)
        layout.addLayout(buttons)
        layout.addWidget(hint)
        layout.addWidget(confirmation)
        self.area.setWidget(body)

    def show_state(self, state: SettingsState) -> None:
        """Shows the stored hosts when they change (so what is being typed is not overwritten)."""
        self.mcp.show_state(state)
        self.save.setEnabled("tools" not in state.busy and state.tools is not None)
        if state.tools is None or state.tools == self._shown:
            return
        self._shown = state.tools
        self.hosts.setPlainText("\n".join(state.tools.allowed_hosts))


def _wrapped(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setWordWrap(True)
    return label
