"""The Knowledge page's backend over the Container's knowledge indexer (indexing runs on a thread of its own, so the
worker's loop, and a streaming reply, never wait for it)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from app.container import Container
from domain.models import AgentId, SessionId
from ui.knowledge_backend import KnowledgeFolder, SemanticChoice


class KnowledgeBridge:
    """Knowledge folders of agents."""

    _c: Container

    async def knowledge_folders(self, agent_id: AgentId) -> Sequence[KnowledgeFolder]:
        documents = self._c.documents
        return [KnowledgeFolder(path, *documents.counts(agent_id, path)) for _, path in documents.folders(agent_id)]

    async def add_knowledge_folder(self, agent_id: AgentId, path: str,
                                   progress: Callable[[str], None] | None = None) -> str:
        report = await asyncio.to_thread(self._c.knowledge.add, agent_id, Path(path), progress)
        return report.line

    async def remove_knowledge_folder(self, agent_id: AgentId, path: str) -> None:
        await asyncio.to_thread(self._c.knowledge.remove, agent_id, path)

    async def reindex_knowledge(self, agent_id: AgentId,
                                progress: Callable[[str], None] | None = None) -> Sequence[str]:
        reports = await asyncio.to_thread(self._c.knowledge.reindex, agent_id, progress)
        return [r.line for r in reports]

    async def refresh_knowledge(self, session_id: SessionId | None) -> Sequence[str]:
        agent: AgentId | None = None
        if session_id is not None:
            session = self._c.sessions.get(session_id)
            agent = session.current_agent_id if session is not None else None
            if agent is None or not self._c.documents.has_knowledge(agent):
                return []
        reports = await asyncio.to_thread(self._c.knowledge.refresh, agent)
        return [r.line for r in reports]

    async def semantic_search(self, agent_id: AgentId) -> SemanticChoice:
        agent = self._c.agents.get(agent_id)
        settings = self._c.settings.context_settings()
        if agent is not None:
            settings = settings.with_overrides(agent.context_overrides)
        return SemanticChoice(settings.semantic_search, settings.embedding_model or "")

    async def set_semantic_search(self, agent_id: AgentId, on: bool, model: str) -> SemanticChoice:
        self._c.configure_agent(agent_id, [f"semantic_search={'on' if on else 'off'}",
                                           f"embedding_model={model.strip() or 'default'}"])
        return await self.semantic_search(agent_id)
