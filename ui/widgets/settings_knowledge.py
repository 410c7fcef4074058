"""Settings › Knowledge: an agent's folders of documents its conversations search and read (search_documents,
read_document); add a folder, remove one, index again (only changed files are read)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from domain.models import Agent
from ui.viewmodels.knowledge import KnowledgeState, KnowledgeViewModel
from ui.viewmodels.settings import SettingsState


class KnowledgePage(QWidget):
    """Renders KnowledgeState; the agent is chosen from the settings' agents."""

    def __init__(self, vm: KnowledgeViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self._agents: tuple[Agent, ...] = ()
        self.agent = QComboBox(self)
        self.folders = QListWidget(self)
        self.add, self.remove, self.reindex = (QPushButton("Add folder…", self), QPushButton("Remove", self),
                                               QPushButton("Index again", self))
        self.semantic = QCheckBox("Semantic search: find passages by meaning too (their text is sent to the "
                                  "embedding provider)", self)
        self.embedding = QLineEdit(self)
        self.embedding.setPlaceholderText("Embedding provider[/model], e.g. openai/text-embedding-3-small (empty: "
                                          "the first OpenAI or Gemini provider)")
        self.status = QLabel(self)
        self.status.setObjectName("Muted")
        self.status.setWordWrap(True)
        self.choose_folder: Callable[[], str] = lambda: QFileDialog.getExistingDirectory(self, "Add a folder")
        top = QHBoxLayout()
        top.addWidget(QLabel("Agent", self))
        top.addWidget(self.agent, 1)
        buttons = QHBoxLayout()
        for button in (self.add, self.remove, self.reindex):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(QLabel("Folders whose PDF, DOCX, EPUB, Markdown, text and code files this agent's "
                                "conversations can search and read (cited by page or section):", self))
        layout.addWidget(self.folders, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.semantic)
        model_row = QHBoxLayout()
        model_row.addWidget(QLabel("Embedding model", self))
        model_row.addWidget(self.embedding, 1)
        layout.addLayout(model_row)
        layout.addWidget(self.status)
        self.agent.currentIndexChanged.connect(self._agent_chosen)
        self.add.clicked.connect(self._add)
        self.remove.clicked.connect(self._remove)
        self.reindex.clicked.connect(vm.reindex)
        self.semantic.toggled.connect(lambda on: vm.set_semantic(on, self.embedding.text()))
        self.embedding.editingFinished.connect(lambda: vm.set_semantic(self.semantic.isChecked(),
                                                                       self.embedding.text()))
        vm.state_changed.connect(self.show_knowledge)
        self.show_knowledge(vm.state)

    def show_state(self, state: SettingsState) -> None:
        """Lists the agents to choose from (the settings' state)."""
        if state.agents == self._agents:
            return
        self._agents = state.agents
        current = self._vm.state.agent_id
        self.agent.blockSignals(True)
        self.agent.clear()
        for a in state.agents:
            self.agent.addItem(a.name, a.id)
        ids = [a.id for a in state.agents]
        self.agent.setCurrentIndex(ids.index(current) if current in ids else (0 if ids else -1))
        self.agent.blockSignals(False)
        self._agent_chosen(self.agent.currentIndex())

    def show_knowledge(self, state: KnowledgeState) -> None:
        """The folders with their files and passages, and the status line."""
        self.folders.clear()
        for folder in state.folders:
            self.folders.addItem(f"{folder.path} — {folder.files:,} files, {folder.passages:,} passages")
        for button in (self.add, self.remove, self.reindex):
            button.setEnabled(not state.indexing and state.agent_id is not None)
        self.semantic.blockSignals(True)
        self.semantic.setChecked(state.semantic.on)
        self.semantic.blockSignals(False)
        if not self.embedding.hasFocus():
            self.embedding.setText(state.semantic.model)
        for field in (self.semantic, self.embedding):
            field.setEnabled(state.agent_id is not None)
        self.status.setText(state.error or state.message or "")

    def _agent_chosen(self, index: int) -> None:
        self._vm.show_agent(self.agent.itemData(index) if index >= 0 else None)

    def _add(self) -> None:
        path = self.choose_folder()
        if path:
            self._vm.add_folder(path)

    def _remove(self) -> None:
        row = self.folders.currentRow()
        folders = self._vm.state.folders
        if 0 <= row < len(folders):
            self._vm.remove_folder(folders[row].path)
