"""Settings › Agents (name, system prompt, tools) and Memories (list, edit, delete)."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from domain.mcp import McpServer
from domain.models import Agent
from ui.viewmodels.settings import SettingsState, SettingsViewModel

MCP_PREFIX = "MCP server: "
MCP_ROLE = Qt.ItemDataRole.UserRole


class AgentsPage(QWidget):
    """Agents: name, system prompt, enabled built-in tools and MCP servers."""

    def __init__(self, vm: SettingsViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self.list = QListWidget(self)
        self.list.setMaximumWidth(220)
        self.name = QLineEdit(self)
        self.prompt = QPlainTextEdit(self)
        self.prompt.setPlaceholderText("System prompt")
        self.tools = QListWidget(self)
        self.tools.setMaximumHeight(130)
        new, save, delete = QPushButton("New", self), QPushButton("Save", self), QPushButton("Delete", self)
        form = QFormLayout()
        form.addRow("Name", self.name)
        form.addRow("System prompt", self.prompt)
        form.addRow("Tools", self.tools)
        buttons = QHBoxLayout()
        for b in (new, save, delete):
            buttons.addWidget(b)
        buttons.addStretch(1)
        form.addRow("", buttons)
        layout = QHBoxLayout(self)
        layout.addWidget(self.list)
        layout.addLayout(form, 1)
        self._agents: tuple[Agent, ...] = ()
        self._tool_names: tuple[str, ...] = ()
        self._servers: tuple[McpServer, ...] = ()
        self._current: Agent | None = None
        self.list.currentRowChanged.connect(self._show)
        new.clicked.connect(lambda: self._edit(None))
        save.clicked.connect(self._save)
        delete.clicked.connect(lambda: self._current and vm.delete_agent(self._current.id))

    def show_state(self, state: SettingsState) -> None:
        """Lists agents; keeps the one being edited."""
        if (state.agents, state.tool_names, state.mcp_servers) == (self._agents, self._tool_names, self._servers):
            return
        self._agents, self._tool_names, self._servers = state.agents, state.tool_names, state.mcp_servers
        self.list.blockSignals(True)
        self.list.clear()
        for a in state.agents:
            self.list.addItem(a.name)
        self.list.blockSignals(False)
        current = self._current.id if self._current else None
        ids = [a.id for a in state.agents]
        self.list.setCurrentRow(ids.index(current) if current in ids else (0 if ids else -1))

    def _show(self, row: int) -> None:
        self._edit(self._agents[row] if 0 <= row < len(self._agents) else None)

    def _edit(self, agent: Agent | None) -> None:
        self._current = agent
        self.name.setText(agent.name if agent else "")
        self.prompt.setPlainText(agent.system_prompt or "" if agent else "")
        self.tools.clear()
        for name in self._tool_names:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            on = agent is None or name in agent.enabled_tools
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            self.tools.addItem(item)
        for server in self._servers:  # a new server is on for every agent; each agent can turn it off
            count = len(server.tools)
            item = QListWidgetItem(f"{MCP_PREFIX}{server.name} ({count} tool{'' if count == 1 else 's'})")
            item.setData(MCP_ROLE, server.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            on = agent is None or agent.id not in server.disabled_agents
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            self.tools.addItem(item)

    def _save(self) -> None:
        items = [self.tools.item(i) for i in range(self.tools.count())]
        checked = [(i, i.checkState() == Qt.CheckState.Checked) for i in items]
        tools = tuple(i.text() for i, on in checked if on and i.data(MCP_ROLE) is None)
        mcp_off = [str(i.data(MCP_ROLE)) for i, on in checked if not on and i.data(MCP_ROLE) is not None]
        base = self._current or Agent(id="", name="")
        self._vm.save_agent(replace(base, name=self.name.text().strip(),
                                    system_prompt=self.prompt.toPlainText().strip() or None, enabled_tools=tools),
                            mcp_off if self._servers else None)


class MemoriesPage(QWidget):
    """Long-term memories: list, edit, delete."""

    def __init__(self, vm: SettingsViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self.list = QListWidget(self)
        self.text = QPlainTextEdit(self)
        self.text.setMaximumHeight(110)
        save, delete = QPushButton("Save", self), QPushButton("Delete", self)
        self.empty = QLabel("No memories yet. Agents save durable facts here (the save_memory tool), "
                            "and before a conversation is summarized.", self)
        self.empty.setObjectName("Muted")
        self.empty.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(save)
        buttons.addWidget(delete)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.empty)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.text)
        layout.addLayout(buttons)
        self._ids: list[str] = []
        self.list.currentRowChanged.connect(
            lambda row: self.text.setPlainText(self.list.item(row).data(Qt.ItemDataRole.UserRole + 1)
                                               if row >= 0 else ""))
        save.clicked.connect(self._save)
        delete.clicked.connect(self._delete)

    def _save(self) -> None:
        if self._selected():
            self._vm.update_memory(self._selected(), self.text.toPlainText())

    def _delete(self) -> None:
        if self._selected():
            self._vm.delete_memory(self._selected())

    def _selected(self) -> str:
        row = self.list.currentRow()
        return self._ids[row] if 0 <= row < len(self._ids) else ""

    def show_state(self, state: SettingsState) -> None:
        """Lists memories newest first."""
        ids = [m.id for m in state.memories]
        self.empty.setVisible(not ids)
        if ids == self._ids and all(
                self.list.item(i).data(Qt.ItemDataRole.UserRole + 1) == m.content
                for i, m in enumerate(state.memories)):
            return
        self._ids = ids
        self.list.clear()
        for m in state.memories:
            item = QListWidgetItem(f"{m.created_at:%Y-%m-%d}  {m.content[:140]}")
            item.setData(Qt.ItemDataRole.UserRole + 1, m.content)
            self.list.addItem(item)
