"""Import: conversations read from an export stored as sessions, all of them or none; a conversation imported
before gains the messages it did not have (an export made again after the conversation grew)."""

from __future__ import annotations

from collections.abc import Iterable, Sized
from contextlib import nullcontext
from dataclasses import dataclass, replace

from domain.chat.paths import BranchSwitcher
from domain.chat.tree import CONTEXT_RESET
from domain.chat.turn_gate import TurnGate
from domain.importers.model import ImportedConversation, Progress
from domain.models import CompactionRecord, Session, Usage
from domain.ports import AgentRepository, MessageRepository, SessionRepository, UnitOfWork


@dataclass(frozen=True)
class ImportResult:
    """What an import stored: new sessions, those already there with nothing new (skipped), those already there that
    gained messages or checkpoints (updated), ids that appeared more than once in the file (repeated), and the
    messages written."""

    imported: tuple[str, ...]
    skipped: tuple[str, ...]
    messages: int
    updated: tuple[str, ...] = ()
    repeated: tuple[str, ...] = ()


class ImportConversationsUseCase:
    """Stores imported conversations in one transaction: a failure stores nothing. A conversation whose session
    id is already there gains only the messages it did not have, so importing the same file twice duplicates
    nothing and importing a newer export adds what is new (its messages and its checkpoints). Conversations are
    taken one at a time (an iterable: a large export is read as it is stored)."""

    def __init__(self, store: UnitOfWork, sessions: SessionRepository, messages: MessageRepository,
                 agents: AgentRepository, *, gate: TurnGate | None = None) -> None:
        """`gate`: adding to a conversation while a turn runs in it is refused (ConversationBusy: nothing of the
        file is stored), as a second sender is."""
        self._store, self._sessions, self._messages, self._agents = store, sessions, messages, agents
        self._gate = gate
        self._switcher = BranchSwitcher(store, sessions, messages)

    def __call__(self, conversations: Iterable[ImportedConversation], progress: Progress | None = None
                 ) -> ImportResult:
        """Every conversation stored (its branches, the path it had open, its checkpoints) or none."""
        imported: list[str] = []
        skipped: list[str] = []
        updated: list[str] = []
        repeated: list[str] = []
        seen: set[str] = set()
        written = 0
        total = len(conversations) if isinstance(conversations, Sized) else None
        with self._store.atomic():
            for done, conversation in enumerate(conversations, start=1):
                sid = conversation.session_id
                if sid in seen and sid not in repeated:
                    repeated.append(sid)
                seen.add(sid)
                if self._sessions.get(sid) is None:
                    written += self._one(conversation)
                    imported.append(sid)
                else:
                    added, checkpoints = self._more(conversation)
                    written += added
                    if (added or checkpoints) and sid not in updated and sid not in imported:
                        updated.append(sid)
                    elif not (added or checkpoints) and sid not in (*imported, *updated, *skipped):
                        skipped.append(sid)
                if progress is not None:
                    progress(done, total)
        return ImportResult(tuple(imported), tuple(skipped), written, tuple(updated), tuple(repeated))

    def _one(self, c: ImportedConversation) -> int:
        agent = c.agent_id if c.agent_id and self._agents.get(c.agent_id) is not None else None
        self._sessions.create(Session(
            id=c.session_id, title=c.title, current_agent_id=agent, created_at=c.created_at, updated_at=c.updated_at,
            current_provider_id=c.provider_id, current_model_id=c.model_id, reasoning=c.reasoning,
            system_prompt=c.system_prompt,
        ))
        # off the path while written: a root then stays a root; in bulk, one conversation's messages at a time
        self._messages.add_many([replace(message, active=False, seq=0) for message in c.messages])
        ids = {m.id for m in c.messages}
        for record in c.checkpoints:
            self._checkpoint(record, ids, record.boundary)
        self._switcher.switch(c.session_id, c.leaf_id)
        if any(c.totals):
            self._sessions.add_usage(c.session_id, Usage(c.totals[0], c.totals[1], c.totals[2]))
        return len(c.messages)

    def _checkpoint(self, record: CompactionRecord, ids: set[str], boundary: int) -> bool:
        """Stores one checkpoint of the source whose last summarized message is stored (`ids`); False otherwise."""
        if record.summary and record.summary.strip() and record.through_id in ids:
            self._sessions.apply_compaction(record.session_id, summary=record.summary, boundary=boundary,
                                            record=record)
        elif record.trigger == CONTEXT_RESET and record.through_id in ids:  # a Reset context still holds
            self._sessions.reset_context(record.session_id, record)
        else:
            return False
        return True

    def _more(self, c: ImportedConversation) -> tuple[int, int]:
        """The messages of `c` the stored session does not have, added under their parents (parents come first),
        and the checkpoints it does not have; when there are any, the session's path moves to the leaf the source
        had open (its summary with it). Returns how many messages and how many checkpoints were added."""
        known = {node.id for node in self._messages.tree(c.session_id)}
        new = [m for m in c.messages if m.id not in known]
        stored = {_key(r) for r in self._sessions.compactions(c.session_id)}
        records = [r for r in c.checkpoints if _key(r) not in stored]
        if not new and not records:
            return 0, 0
        gate = self._gate
        with gate.exclusive(c.session_id, "Import it again when it is done") if gate is not None else nullcontext():
            adding = []
            for message in new:
                parent = message.parent_id if message.parent_id in known else None
                adding.append(replace(message, active=False, seq=0, parent_id=parent))
                known.add(message.id)
            self._messages.add_many(adding)
            checkpoints = 0
            for record in records:  # the boundary is the seq here of the message after the last one summarized
                through = self._messages.get(record.through_id) if record.through_id in known else None
                checkpoints += self._checkpoint(record, known, through.seq + 1 if through is not None else 0)
            if (new or checkpoints) and c.leaf_id in known:
                self._switcher.switch(c.session_id, c.leaf_id)
        return len(new), checkpoints


def _key(record: CompactionRecord) -> tuple[object, ...]:
    """What tells one checkpoint from another across an export and its import."""
    return record.through_id, record.trigger, record.summary
