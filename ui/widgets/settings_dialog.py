"""The settings dialog: Providers, Models, Compaction, Agents, Knowledge, Memories, Tools, Sync; status line at the
bottom."""

from __future__ import annotations

from typing import cast

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTabWidget, QVBoxLayout, QWidget

from ui.knowledge_backend import KnowledgeBackend
from ui.viewmodels.knowledge import KnowledgeViewModel
from ui.viewmodels.settings import SettingsState, SettingsViewModel
from ui.viewmodels.sync import SyncViewModel
from ui.widgets.settings_agents import AgentsPage, MemoriesPage
from ui.widgets.settings_knowledge import KnowledgePage
from ui.widgets.settings_pages import CompactionPage, ModelsPage
from ui.widgets.settings_providers import ProvidersPage
from ui.widgets.settings_sync import SyncPage
from ui.widgets.settings_tools import ToolsPage


class SettingsDialog(QDialog):
    """Renders SettingsState across its pages."""

    def __init__(self, vm: SettingsViewModel, parent: QWidget | None = None,
                 knowledge: KnowledgeViewModel | None = None, sync_vm: SyncViewModel | None = None) -> None:
        """`knowledge`: the Knowledge page's view model (made here over the settings' backend when it has one);
        `sync_vm`: the Sync page's."""
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.resize(860, 640)
        self.vm = vm
        self.tabs = QTabWidget(self)
        self.providers = ProvidersPage(vm, self)
        self.models = ModelsPage(vm, self)
        self.compaction = CompactionPage(vm, self)
        self.agents = AgentsPage(vm, self)
        self.memories = MemoriesPage(vm, self)
        self.tools = ToolsPage(vm, self)
        for page, title in ((self.providers, "Providers"), (self.models, "Models"), (self.compaction, "Compaction"),
                            (self.agents, "Agents"), (self.memories, "Memories"), (self.tools, "Tools")):
            self.tabs.addTab(page, title)
        if knowledge is None and hasattr(vm.backend, "knowledge_folders"):
            knowledge = KnowledgeViewModel(cast(KnowledgeBackend, vm.backend), vm.worker)
        self.knowledge = KnowledgePage(knowledge, self) if knowledge is not None else None
        if self.knowledge is not None:
            self.tabs.insertTab(4, self.knowledge, "Knowledge")  # beside Agents
        self.sync = SyncPage(sync_vm, self) if sync_vm is not None else None
        if self.sync is not None:
            self.tabs.addTab(self.sync, "Sync")
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        vm.state_changed.connect(self.show_state)
        self.show_state(vm.state)

    def show_state(self, state: SettingsState) -> None:
        """Updates every page and the status line."""
        for page in (self.providers, self.models, self.compaction, self.agents, self.memories, self.tools,
                     self.knowledge):
            if page is not None:
                page.show_state(state)
        if state.error:
            self.status.setObjectName("ErrorText")
            self.status.setText(state.error)
        else:
            self.status.setObjectName("Muted")
            self.status.setText("Working…" if state.busy else (state.message or ""))
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)
