"""Drives the settings dialog's Knowledge page: one agent's folders, added, removed and re-indexed on the worker."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QObject, Signal

from domain.models import AgentId
from ui.error_text import describe
from ui.knowledge_backend import KnowledgeBackend, KnowledgeFolder, SemanticChoice
from ui.signals import emit
from ui.worker import AsyncWorker

OFF = SemanticChoice()


@dataclass(frozen=True)
class KnowledgeState:
    """The agent shown, its folders, whether indexing runs, and the last report or error."""

    agent_id: AgentId | None = None
    folders: tuple[KnowledgeFolder, ...] = ()
    indexing: bool = False
    semantic: SemanticChoice = OFF  # the agent's semantic search (embeddings), off by default
    message: str | None = None
    error: str | None = None


class KnowledgeViewModel(QObject):
    """Knowledge verbs; each runs on the worker and updates KnowledgeState."""

    state_changed = Signal(object)  # KnowledgeState
    progressed = Signal(str)  # a progress line from the indexing thread (delivered on the GUI thread)

    def __init__(self, backend: KnowledgeBackend, worker: AsyncWorker) -> None:
        super().__init__()
        self._backend, self._worker = backend, worker
        self._state = KnowledgeState()
        self.progressed.connect(self._progress)

    @property
    def state(self) -> KnowledgeState:
        """The current state."""
        return self._state

    def show_agent(self, agent_id: AgentId | None) -> None:
        """Shows an agent's folders."""
        if agent_id == self._state.agent_id:
            return
        self._set(agent_id=agent_id, folders=(), semantic=OFF, message=None, error=None)
        if agent_id is not None:
            self._reload(None)
            self._worker.call(lambda: self._backend.semantic_search(agent_id), self._semantic_shown(agent_id),
                              lambda error: self._set(error=describe(error)))

    def set_semantic(self, on: bool, model: str) -> None:
        """Turns the agent's semantic search on or off, with that embedding provider[/model] ("": the default)."""
        agent = self._state.agent_id
        if agent is None or SemanticChoice(on, model.strip()) == self._state.semantic:
            return
        self._worker.call(lambda: self._backend.set_semantic_search(agent, on, model), self._semantic_shown(agent),
                          lambda error: self._set(error=describe(error)))

    def _semantic_shown(self, agent: AgentId) -> Callable[[SemanticChoice], None]:
        def shown(choice: SemanticChoice) -> None:
            if agent == self._state.agent_id:
                self._set(semantic=choice, error=None)

        return shown

    def add_folder(self, path: str) -> None:
        """Adds a folder to the agent's knowledge and indexes it (the status says how many files)."""
        agent = self._state.agent_id
        if agent is not None and path.strip():
            self._run(lambda: self._backend.add_knowledge_folder(agent, path.strip(), self._say), self._reload)

    def remove_folder(self, path: str) -> None:
        """Forgets a folder and its index."""
        agent = self._state.agent_id
        if agent is not None:
            self._run(lambda: self._backend.remove_knowledge_folder(agent, path),
                      lambda _: self._reload(f"Removed {path}."))

    def reindex(self) -> None:
        """Indexes the agent's folders again; only changed files are read."""
        agent = self._state.agent_id
        if agent is not None:
            self._run(lambda: self._backend.reindex_knowledge(agent, self._say),
                      lambda lines: self._reload("\n".join(lines)))

    def _say(self, line: str) -> None:
        """Called from the indexing thread: the line goes to the GUI thread as a signal."""
        emit(self.progressed, line)

    def _progress(self, line: str) -> None:
        if self._state.indexing:
            self._set(message=line)

    def _reload(self, message: str | None) -> None:
        agent = self._state.agent_id
        if agent is None:
            return

        def shown(folders: Any) -> None:
            if agent == self._state.agent_id:
                self._set(folders=tuple(folders), message=message or self._state.message)

        self._worker.call(lambda: self._backend.knowledge_folders(agent), shown,
                          lambda error: self._set(error=describe(error)))

    def _run(self, make: Callable[[], Any], then: Callable[[Any], None]) -> None:
        self._set(indexing=True, error=None, message="Indexing…")

        def ok(result: Any) -> None:
            self._set(indexing=False, message=None)
            then(result)

        self._worker.call(make, ok, lambda error: self._set(indexing=False, error=describe(error), message=None))

    def _set(self, **changes: Any) -> None:
        self._state = replace(self._state, **changes)
        emit(self.state_changed, self._state)
