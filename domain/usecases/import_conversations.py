"""Import: conversations read from an export stored as sessions, all of them or none, each one once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from domain.chat.paths import BranchSwitcher
from domain.chat.tree import CONTEXT_RESET
from domain.importers.model import ImportedConversation, Progress
from domain.models import Session, Usage
from domain.ports import AgentRepository, MessageRepository, SessionRepository, UnitOfWork


@dataclass(frozen=True)
class ImportResult:
    """What an import stored: new sessions, those already there (skipped), and the messages written."""

    imported: tuple[str, ...]
    skipped: tuple[str, ...]
    messages: int


class ImportConversationsUseCase:
    """Stores imported conversations in one transaction: a failure stores nothing. A conversation whose session
    id is already there (imported before) is skipped, so importing the same file twice does not duplicate."""

    def __init__(self, store: UnitOfWork, sessions: SessionRepository, messages: MessageRepository,
                 agents: AgentRepository) -> None:
        self._store, self._sessions, self._messages, self._agents = store, sessions, messages, agents
        self._switcher = BranchSwitcher(store, sessions, messages)

    def __call__(self, conversations: Sequence[ImportedConversation], progress: Progress | None = None
                 ) -> ImportResult:
        """Every conversation stored (its branches, the path it had open, its checkpoints) or none."""
        imported, skipped, written = [], [], 0
        with self._store.atomic():
            for done, conversation in enumerate(conversations, start=1):
                if self._sessions.get(conversation.session_id) is not None:
                    skipped.append(conversation.session_id)
                else:
                    written += self._one(conversation)
                    imported.append(conversation.session_id)
                if progress is not None:
                    progress(done, len(conversations))
        return ImportResult(tuple(imported), tuple(skipped), written)

    def _one(self, c: ImportedConversation) -> int:
        agent = c.agent_id if c.agent_id and self._agents.get(c.agent_id) is not None else None
        self._sessions.create(Session(
            id=c.session_id, title=c.title, current_agent_id=agent, created_at=c.created_at, updated_at=c.updated_at,
            current_provider_id=c.provider_id, current_model_id=c.model_id, reasoning=c.reasoning,
            system_prompt=c.system_prompt,
        ))
        for message in c.messages:  # off the path while written: a root then stays a root
            self._messages.add(replace(message, active=False, seq=0))
        ids = {m.id for m in c.messages}
        for record in c.checkpoints:
            if record.summary and record.summary.strip() and record.through_id in ids:
                self._sessions.apply_compaction(c.session_id, summary=record.summary, boundary=record.boundary,
                                                record=record)
            elif record.trigger == CONTEXT_RESET and record.through_id in ids:  # a Reset context still holds
                self._sessions.reset_context(c.session_id, record)
        self._switcher.switch(c.session_id, c.leaf_id)
        if any(c.totals):
            self._sessions.add_usage(c.session_id, Usage(c.totals[0], c.totals[1], c.totals[2]))
        return len(c.messages)
