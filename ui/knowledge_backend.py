"""What the settings dialog's Knowledge page needs: an agent's knowledge folders, adding, removing, re-indexing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from domain.models import AgentId


@dataclass(frozen=True)
class KnowledgeFolder:
    """A folder of an agent's knowledge with what is indexed of it."""

    path: str
    files: int
    passages: int


@dataclass(frozen=True)
class SemanticChoice:
    """An agent's semantic search: on or off, and the embedding provider[/model] it names ("" : the first OpenAI or
    Gemini provider)."""

    on: bool = False
    model: str = ""


class KnowledgeBackend(Protocol):
    """Knowledge folders; every call runs on the worker (indexing reads files, never on the GUI thread)."""

    async def knowledge_folders(self, agent_id: AgentId) -> Sequence[KnowledgeFolder]:
        """The agent's folders, by path."""
        raise NotImplementedError

    async def add_knowledge_folder(self, agent_id: AgentId, path: str,
                                   progress: Callable[[str], None] | None = None) -> str:
        """Adds a folder and indexes it, saying how far it got on `progress` (from another thread); returns the
        one-line report (InvalidInput when it is not a folder)."""
        raise NotImplementedError

    async def remove_knowledge_folder(self, agent_id: AgentId, path: str) -> None:
        """Forgets a folder and its index."""
        raise NotImplementedError

    async def reindex_knowledge(self, agent_id: AgentId,
                                progress: Callable[[str], None] | None = None) -> Sequence[str]:
        """Indexes the agent's folders again (only what changed), saying how far it got on `progress`; one report
        line per folder."""
        raise NotImplementedError

    async def semantic_search(self, agent_id: AgentId) -> SemanticChoice:
        """Whether the agent's document searches also rank by meaning (embeddings), and with which model."""
        raise NotImplementedError

    async def set_semantic_search(self, agent_id: AgentId, on: bool, model: str) -> SemanticChoice:
        """Turns the agent's semantic search on or off with that embedding provider[/model] ("": the default);
        InvalidInput when the setting is refused."""
        raise NotImplementedError
