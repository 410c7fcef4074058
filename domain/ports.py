"""Ports: the interfaces the domain needs from storage, the keychain and time (providers and tools: provider_ports;
the configuration's stores: config_ports, re-exported here)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from domain.config_ports import AgentRepository as AgentRepository  # re-exported
from domain.config_ports import ApiKeyStorage as ApiKeyStorage  # re-exported
from domain.config_ports import CalibrationStore as CalibrationStore  # re-exported
from domain.config_ports import KeySource as KeySource  # re-exported
from domain.config_ports import MemoryRepository as MemoryRepository  # re-exported
from domain.config_ports import ModelRepository as ModelRepository  # re-exported
from domain.config_ports import ProviderRepository as ProviderRepository  # re-exported
from domain.config_ports import SettingsRepository as SettingsRepository  # re-exported
from domain.models import (
    CompactionRecord,
    Message,
    MessageId,
    ModelId,
    Session,
    SessionId,
    TreeNode,
    Usage,
)


class UnitOfWork(Protocol):
    """Groups repository calls into one transaction: everything inside `atomic()` is stored, or nothing is."""

    def atomic(self) -> AbstractContextManager[None]:
        """Inside the block every repository call shares one transaction: reads see one consistent state, writes
        are serialized against other writers, and all of it commits when the block ends or rolls back when it
        raises. A nested block joins the outer one. Never await inside the block."""
        ...

    def snapshot(self) -> AbstractContextManager[None]:
        """Inside the block every read shares one read transaction: one consistent state, read at once. For
        loading; writes inside it are not part of it. Never await inside the block."""
        ...


class Clock(Protocol):
    """The current time, in UTC."""

    def now(self) -> datetime: ...


MATCH_OPEN, MATCH_CLOSE = "\x02", "\x03"  # around each matched word in a search snippet (never in typed text)


@dataclass(frozen=True)
class SessionSearchHit:
    """A session matching a full-text query, with a snippet of the match."""

    session_id: SessionId
    title: str
    snippet: str  # each matched word between MATCH_OPEN and MATCH_CLOSE
    message_id: MessageId | None = None  # the matching message; None when the title or summary matched
    archived: bool = False  # the session is archived (off the sessions list, still searchable)


SESSION_FIELDS = frozenset({  # what SessionRepository.update_fields may write, one field at a time
    "title", "is_active", "reasoning", "system_prompt", "compacted_summary", "updated_at", "web_search",
})


class SessionRepository(Protocol):
    """Sessions; soft-deleted ones stay until purged."""

    def create(self, session: Session) -> Session: ...
    def get(self, session_id: SessionId) -> Session | None: ...
    def list(self, *, include_deleted: bool = False) -> Sequence[Session]:
        """Newest (by updated_at) first."""
        ...
    def update(self, session: Session) -> Session: ...
    def update_fields(self, session_id: SessionId, **fields: Any) -> Session:
        """Writes only the named fields (SESSION_FIELDS; others InvalidInput) in one statement and returns the
        session as stored: a concurrent change to any other field (a compaction, a rename) is kept. `updated_at`
        never moves backwards; NotFound for an unknown session."""
        ...
    def add_usage(self, session_id: SessionId, usage: Usage) -> None:
        """Adds one response's usage to the session's running totals, atomically (NotFound for an unknown session;
        nothing is read back: it runs every round, and `get` reads the totals)."""
        ...
    def apply_compaction(
        self, session_id: SessionId, *, summary: str, boundary: int, record: CompactionRecord
    ) -> Session:
        """In one transaction: store summary and boundary, bump compaction_count, reset the flush marker, log record."""
        ...
    def compactions(self, session_id: SessionId) -> Sequence[CompactionRecord]:
        """The session's compaction log, oldest first; each carries its summary and the last message it covers."""
        ...
    def reset_context(self, session_id: SessionId, record: CompactionRecord | None) -> Session:
        """In one transaction: drop summary and boundary, reset the flush marker and log `record` (a reset: no
        summary; its through_id the newest message of the path it was made on) when given."""
        ...
    def revise_checkpoint(self, session_id: SessionId, summary: str) -> None:
        """The newest compaction at the session's current boundary takes an edited summary (nothing without one)."""
        ...
    def delete(self, session_id: SessionId, at: datetime) -> None:
        """Soft delete (undoable with restore)."""
        ...
    def restore(self, session_id: SessionId) -> None: ...
    def purge(self, session_id: SessionId) -> None: ...
    def search(self, query: str, limit: int = 50) -> Sequence[SessionSearchHit]:
        """Full-text search over message contents, tool outputs, titles and summaries."""
        ...


class SearchBacklog(Protocol):
    """The messages stored since the search index last took a batch of them (a search takes them all first)."""

    def catch_up(self) -> int:
        """Indexes the waiting messages once a batch of them waits; returns how many were indexed."""
        ...


@dataclass(frozen=True)
class TurnLease:
    """A conversation's turn being written, or waiting in line to be (`waiting`): by whom (a token of its own per
    turn, and words for people), since when (its place in the line) and until when, unless renewed; `host` and `pid`
    name the process."""

    session_id: SessionId
    owner: str
    holder: str
    acquired_at: datetime
    expires_at: datetime
    host: str = ""
    pid: int = 0
    waiting: bool = False


class TurnLeases(Protocol):
    """One turn at a time per conversation, across processes, first come first served: a lease per conversation
    whose turn is running, and a line of the turns waiting for it. Expired ones and those of processes known to be
    gone (a dead owner) do not count and are taken over."""

    def take(self, lease: TurnLease, now: datetime, *, queue: bool = False) -> TurnLease | None:
        """In one transaction: the conversation's lease for `lease.owner` (until lease.expires_at) when no one holds
        it and no one waits in line before this owner; else the lease or waiter in the way, and with `queue` this
        owner's place in the line is kept (taken on its first call, its expiry renewed). NotFound for no session."""
        ...
    def renew(self, session_id: SessionId, owner: str, until: datetime) -> bool:
        """Extends the owner's lease; False when it is no longer the owner's (taken over)."""
        ...
    def release(self, session_id: SessionId, owner: str) -> None:
        """Ends the owner's lease or its place in the line (nothing when it has neither)."""
        ...
    def holder(self, session_id: SessionId, now: datetime) -> TurnLease | None:
        """The live lease on the conversation, if any (expired ones and those of dead processes do not count)."""
        ...


class MessageRepository(Protocol):
    """Messages of sessions, in order; the store never forgets one."""

    def add(self, message: Message, *, full_output: str | None = None) -> Message:
        """Stores the message with the next seq of its session (returned); full_output is kept compressed beside it.
        Without a parent_id it follows the newest message of the active path (returned with its parent_id); with one
        (a message of the same session, else NotFound) the caller keeps the active path right (set_path)."""
        ...
    def add_many(self, messages: Sequence[Message]) -> int:
        """Stores messages of one session as `add` would one after another (each the next seq; a parent_id of the
        session or of one stored before it in the list, else NotFound), in bulk; returns how many."""
        ...
    def get(self, message_id: MessageId) -> Message | None: ...
    def snapshot(self, session_id: SessionId, *, include_inactive: bool = False) -> Sequence[Message]:
        """The conversation's messages in order (with include_inactive, also those taken off its path)."""
        ...
    def since(self, session_id: SessionId, seq: int) -> Sequence[Message]:
        """Messages on the conversation's path with seq >= the given one, in order."""
        ...
    def pinned(self, session_id: SessionId) -> Sequence[Message]:
        """Pinned messages on the conversation's path, in order."""
        ...
    def path_lengths(self, session_id: SessionId, seq: int) -> Sequence[tuple[int, int, int, int, int]]:
        """(seq, characters of the content, tool input, tool name, tool output) of each message on the conversation's
        path with seq >= the given one, in order, without reading the messages themselves."""
        ...
    def update(self, message: Message) -> Message: ...
    def full_output(self, message_id: MessageId) -> str | None:
        """The untruncated tool output kept beside a truncated result, if any."""
        ...
    def count(self, session_id: SessionId) -> int: ...
    def tree(self, session_id: SessionId) -> Sequence[TreeNode]:
        """Every message of the session as a node of its tree (id, parent, seq, type, on the active path), in seq
        order."""
        ...
    def set_path(self, session_id: SessionId, leaf_id: MessageId | None) -> Sequence[MessageId]:
        """Makes the path from the root to `leaf_id` the conversation (None: an empty path, before a new root);
        every other message stays stored, off the path. Returns the path's ids, root first; NotFound for a message
        not in the session. `add` without a parent then follows the leaf."""
        ...
    def path_tail(self, session_id: SessionId, count: int, before_seq: int | None = None) -> Sequence[Message]:
        """The newest `count` messages of the active path (with seq < before_seq), in order."""
        ...
    def path_head(self, session_id: SessionId, count: int, after_seq: int) -> Sequence[Message]:
        """The oldest `count` messages of the active path with seq > after_seq, in order."""
        ...
    def path_count(self, session_id: SessionId, before_seq: int | None = None) -> int:
        """How many messages the active path has (with seq < before_seq)."""
        ...
    def reply_tokens(self, session_id: SessionId) -> Sequence[tuple[ModelId | None, int, int]]:
        """(model, input tokens, output tokens) summed over the replies that reported any, on every branch (replaced
        answers were paid for too): one entry per model, in the order each first answered."""
        ...
    def reply_searches(self, session_id: SessionId) -> Sequence[tuple[ModelId | None, int]]:
        """(model, web searches run) over the searched replies, on every branch (each search was paid for)."""
        ...

    def children(self, session_id: SessionId, parent_ids: Sequence[MessageId | None]
                 ) -> Mapping[MessageId | None, tuple[MessageId, ...]]:
        """Each parent's children in the session, oldest first (None: the roots)."""
        ...
    def newest_leaf(self, session_id: SessionId, message_id: MessageId) -> MessageId:
        """The most recently written leaf at or below the message; NotFound for a message not in the session."""
        ...
    def delete_subtree(self, session_id: SessionId, message_id: MessageId) -> Sequence[MessageId]:
        """Deletes the message and every message below it in the tree (a branch); returns their ids."""
        ...


