"""Typed SQLAlchemy 2.x rows: the schema at head, which the migrations must build exactly. The conversation rows live
here; the base (rows_base), the app's bookkeeping rows (rows_app) and the sync rows (rows_sync) are re-exported."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from data.db.rows_app import AttachmentCountRow as AttachmentCountRow  # re-exported
from data.db.rows_app import CalibrationRow as CalibrationRow  # re-exported
from data.db.rows_app import ConfigRevisionRow as ConfigRevisionRow  # re-exported
from data.db.rows_app import CutEvidenceRow as CutEvidenceRow  # re-exported
from data.db.rows_app import McpAttachedResourceRow as McpAttachedResourceRow  # re-exported
from data.db.rows_app import McpServerRow as McpServerRow  # re-exported
from data.db.rows_app import ServerProbeRow as ServerProbeRow  # re-exported
from data.db.rows_app import SettingRow as SettingRow  # re-exported
from data.db.rows_app import TurnLeaseRow as TurnLeaseRow  # re-exported
from data.db.rows_base import Base as Base  # re-exported
from data.db.rows_base import UtcTimestamp as UtcTimestamp  # re-exported
from data.db.rows_sync import SyncAppliedRow as SyncAppliedRow  # re-exported
from data.db.rows_sync import SyncFieldTimeRow as SyncFieldTimeRow  # re-exported
from data.db.rows_sync import SyncMetaRow as SyncMetaRow  # re-exported
from data.db.rows_sync import SyncShadowRow as SyncShadowRow  # re-exported


class ProviderRow(Base):
    """A provider."""

    __tablename__ = "providers"
    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String, nullable=False)
    type: Mapped[str] = mapped_column(String, nullable=False)
    base_url: Mapped[str | None] = mapped_column(String)
    is_active: Mapped[bool] = mapped_column(Boolean, nullable=False)
    api: Mapped[str | None] = mapped_column(String)  # domain.models.ProviderApi; NULL: auto
    created_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)


class ModelRow(Base):
    """A model of a provider (composite key: id + provider_id)."""

    __tablename__ = "models"
    id: Mapped[str] = mapped_column(String, primary_key=True)
    provider_id: Mapped[str] = mapped_column(
        String, ForeignKey("providers.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    display_name: Mapped[str | None] = mapped_column(String)
    is_default: Mapped[bool] = mapped_column(Boolean, nullable=False)
    source: Mapped[str] = mapped_column(String, nullable=False)
    context_window_size: Mapped[int | None] = mapped_column(Integer)
    max_output_tokens: Mapped[int | None] = mapped_column(Integer)
    window_is_guess: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default="0")
    user_window: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default="0")
    window_source: Mapped[str | None] = mapped_column(String)
    input_limit: Mapped[int | None] = mapped_column(Integer)
    capabilities: Mapped[str | None] = mapped_column(Text)  # JSON (data.db.capabilities_json), NULL: not known
    trained_window: Mapped[int | None] = mapped_column(Integer)  # local servers: trained length (window: loaded)
    retires_on: Mapped[str | None] = mapped_column(String)  # ISO day the provider's own list reports (0039)


class AgentRow(Base):
    """An agent (persona)."""

    __tablename__ = "agents"
    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String, nullable=False)
    system_prompt: Mapped[str | None] = mapped_column(Text)
    preferred_provider_id: Mapped[str | None] = mapped_column(String)
    preferred_model_id: Mapped[str | None] = mapped_column(String)
    tool_names: Mapped[str] = mapped_column(Text, nullable=False)  # JSON list
    is_built_in: Mapped[bool] = mapped_column(Boolean, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)
    context_overrides: Mapped[str] = mapped_column(Text, nullable=False, server_default="{}")  # JSON object


class SessionRow(Base):
    """A conversation."""

    __tablename__ = "sessions"
    id: Mapped[str] = mapped_column(String, primary_key=True)
    title: Mapped[str] = mapped_column(String, nullable=False)
    current_agent_id: Mapped[str | None] = mapped_column(String, ForeignKey("agents.id", ondelete="SET NULL"))
    message_count: Mapped[int] = mapped_column(Integer, nullable=False)
    last_message_preview: Mapped[str | None] = mapped_column(Text)
    is_active: Mapped[bool] = mapped_column(Boolean, nullable=False)
    deleted_at: Mapped[datetime | None] = mapped_column(UtcTimestamp)
    created_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False, index=True)
    compacted_summary: Mapped[str | None] = mapped_column(Text)
    compact_boundary: Mapped[int | None] = mapped_column(Integer)
    total_input_tokens: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")
    total_output_tokens: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")
    total_cache_read_tokens: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")
    flushed_in_compaction_cycle: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default="0")
    compaction_count: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")
    current_provider_id: Mapped[str | None] = mapped_column(String)
    current_model_id: Mapped[str | None] = mapped_column(String)
    reasoning: Mapped[str | None] = mapped_column(String)  # the conversation's own reasoning level; NULL: default
    web_search: Mapped[bool | None] = mapped_column(Boolean)  # the conversation's web search choice; NULL: agent's
    system_prompt: Mapped[str | None] = mapped_column(Text)  # the conversation's own system prompt; NULL: the agent's


class MessageRow(Base):
    """A message; `seq` orders it within its session and is unique there."""

    __tablename__ = "messages"
    __table_args__ = (
        Index("ix_messages_session_seq", "session_id", "seq", unique=True),
        Index("ix_messages_pinned", "session_id", "seq", sqlite_where=text("pinned = 1")),
        Index("ix_messages_parent_id", "parent_id"),
        Index("ix_messages_path", "session_id", "seq", sqlite_where=text("active = 1")),
    )
    id: Mapped[str] = mapped_column(String, primary_key=True)
    session_id: Mapped[str] = mapped_column(  # indexed first in ix_messages_session_seq (0037 dropped its own)
        String, ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False
    )
    type: Mapped[str] = mapped_column(String, nullable=False)
    content: Mapped[str] = mapped_column(Text, nullable=False)
    thinking_content: Mapped[str | None] = mapped_column(Text)
    tool_call_id: Mapped[str | None] = mapped_column(String)
    tool_name: Mapped[str | None] = mapped_column(String)
    tool_input: Mapped[str | None] = mapped_column(Text)
    tool_output: Mapped[str | None] = mapped_column(Text)
    tool_status: Mapped[str | None] = mapped_column(String)
    model_id: Mapped[str | None] = mapped_column(String)
    provider_id: Mapped[str | None] = mapped_column(String)
    input_tokens: Mapped[int | None] = mapped_column(Integer)
    output_tokens: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)
    seq: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")
    pinned: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default="0")
    incomplete: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default="0")
    has_image: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default="0")
    tool_output_original_chars: Mapped[int | None] = mapped_column(Integer)
    active: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default="1")
    reasoning: Mapped[str | None] = mapped_column(Text)  # JSON list of reasoning blocks
    reasoning_tokens: Mapped[int | None] = mapped_column(Integer)
    thinking_ms: Mapped[int | None] = mapped_column(Integer)
    parent_id: Mapped[str | None] = mapped_column(String)  # the tree (NULL: a root); `active` marks the active path
    attachments: Mapped[str | None] = mapped_column(Text)  # JSON list of attachment metadata (bytes in the store)
    web: Mapped[str | None] = mapped_column(Text)  # JSON of the reply's web searches (domain.web)
    end_reason: Mapped[str | None] = mapped_column(String)  # an incomplete reply: "stopped" or "cut" (0027)
    rev: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")  # raised by a trigger (0022)


class MessageAttachmentRow(Base):
    """One reference from a message to a stored attachment file: the file goes when its last reference does."""

    __tablename__ = "message_attachments"
    message_id: Mapped[str] = mapped_column(
        String, ForeignKey("messages.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    sha256: Mapped[str] = mapped_column(String, nullable=False, index=True)


class ToolOutputArchiveRow(Base):
    """The untruncated output of a tool result, zlib-compressed."""

    __tablename__ = "tool_output_archive"
    message_id: Mapped[str] = mapped_column(String, ForeignKey("messages.id", ondelete="CASCADE"), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    original_chars: Mapped[int] = mapped_column(Integer, nullable=False)
    archived_chars: Mapped[int] = mapped_column(Integer, nullable=False)
    sha256: Mapped[str | None] = mapped_column(String, index=True)  # of `data`: sync sends it by this name


class CompactionRow(Base):
    """One compaction of a session."""

    __tablename__ = "compactions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    session_id: Mapped[str] = mapped_column(
        String, ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False, index=True
    )
    created_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)
    boundary: Mapped[int] = mapped_column(Integer, nullable=False)
    tokens_before: Mapped[int] = mapped_column(Integer, nullable=False)
    tokens_after: Mapped[int] = mapped_column(Integer, nullable=False)
    summary_tokens: Mapped[int] = mapped_column(Integer, nullable=False)
    trigger: Mapped[str] = mapped_column(String, nullable=False)
    summary: Mapped[str | None] = mapped_column(Text)  # the checkpoint written (NULL: from before 0017)
    through_message_id: Mapped[str | None] = mapped_column(String)  # the last message it summarizes


class MemoryRow(Base):
    """A long-term memory (agent_id NULL = global)."""

    __tablename__ = "memories"
    __table_args__ = (
        ForeignKeyConstraint(["agent_id"], ["agents.id"], ondelete="CASCADE"),
        ForeignKeyConstraint(["source_session_id"], ["sessions.id"], ondelete="SET NULL"),
    )
    id: Mapped[str] = mapped_column(String, primary_key=True)
    agent_id: Mapped[str | None] = mapped_column(String, index=True)
    content: Mapped[str] = mapped_column(Text, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)
    source_session_id: Mapped[str | None] = mapped_column(String)


class DocumentRow(Base):
    """A document read on demand (migration 0029): an attachment by its sha256 (agent_id NULL), or a knowledge
    file of an agent's folder by its path."""

    __tablename__ = "documents"
    __table_args__ = (
        ForeignKeyConstraint(["agent_id"], ["agents.id"], ondelete="CASCADE"),
        Index("ix_documents_attachment", "sha256", unique=True, sqlite_where=text("agent_id IS NULL")),
        Index("ix_documents_knowledge", "agent_id", "path", unique=True, sqlite_where=text("agent_id IS NOT NULL")),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sha256: Mapped[str] = mapped_column(String, nullable=False)
    name: Mapped[str] = mapped_column(String, nullable=False)
    kind: Mapped[str] = mapped_column(String, nullable=False)
    size: Mapped[int] = mapped_column(Integer, nullable=False)
    pages: Mapped[int | None] = mapped_column(Integer)
    outline: Mapped[str] = mapped_column(Text, nullable=False, server_default="[]")
    agent_id: Mapped[str | None] = mapped_column(String)
    folder: Mapped[str | None] = mapped_column(String)
    path: Mapped[str | None] = mapped_column(String)
    mtime: Mapped[float | None] = mapped_column(Float)
    indexed_at: Mapped[str] = mapped_column(String, nullable=False)


class DocumentPassageRow(Base):
    """A passage of a document: a PDF page (or part of one), a text section or line range; FTS5-indexed."""

    __tablename__ = "document_passages"
    __table_args__ = (
        ForeignKeyConstraint(["document_id"], ["documents.id"], ondelete="CASCADE"),
        Index("ix_document_passages_document", "document_id", "ordinal"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    document_id: Mapped[int] = mapped_column(Integer, nullable=False)
    ordinal: Mapped[int] = mapped_column(Integer, nullable=False)
    page: Mapped[int | None] = mapped_column(Integer)
    section: Mapped[str | None] = mapped_column(String)
    text: Mapped[str] = mapped_column(Text, nullable=False)


class PassageVectorRow(Base):
    """A passage's embedding by one model (migration 0034): float32 values, unit length (optional semantic search)."""

    __tablename__ = "passage_vectors"
    __table_args__ = (ForeignKeyConstraint(["passage_id"], ["document_passages.id"], ondelete="CASCADE"),)
    passage_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    model: Mapped[str] = mapped_column(String, primary_key=True)
    vector: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)


class KnowledgeFolderRow(Base):
    """A folder of an agent's knowledge."""

    __tablename__ = "knowledge_folders"
    __table_args__ = (ForeignKeyConstraint(["agent_id"], ["agents.id"], ondelete="CASCADE"),)
    agent_id: Mapped[str] = mapped_column(String, primary_key=True)
    path: Mapped[str] = mapped_column(String, primary_key=True)
    added_at: Mapped[str] = mapped_column(String, nullable=False)


