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

from domain.models import Agent
from ui.viewmodels.settings import SettingsState, SettingsViewModel


class AgentsPage(QWidget):
    """Agents: name, system prompt, enabled tools."""

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
        self._current: Agent | None = None
        self.list.currentRowChanged.connect(self._show)
        new.clicked.connect(lambda: self._edit(None))
        save.clicked.connect(self._save)
        delete.clicked.connect(lambda: self._current and vm.delete_agent(self._current.id))

    def show_state(self, state: SettingsState) -> None:
        """Lists agents; keeps the one being edited."""
        if state.agents == self._agents and state.tool_names == self._tool_names:
            return
        self._agents, self._tool_names = state.agents, state.tool_names
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

    def _save(self) -> None:
        tools = tuple(self.tools.item(i).text() for i in range(self.tools.count())
                      if self.tools.item(i).checkState() == Qt.CheckState.Checked)
        base = self._current or Agent(id="", name="")
        self._vm.save_agent(replace(base, name=self.name.text().strip(),
                                    system_prompt=self.prompt.toPlainText().strip() or None, enabled_tools=tools))


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
