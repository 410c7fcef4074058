"""The app's own bookkeeping rows: settings, token calibration, MCP servers, the config revision, attachment counts,
cut evidence, server probes, turn leases and the MCP resources attached in conversations."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from data.db.rows_base import Base, UtcTimestamp


class CalibrationRow(Base):
    """Ratio of provider-reported to estimated tokens, per key."""

    __tablename__ = "calibration"
    key: Mapped[str] = mapped_column(String, primary_key=True)
    ratio: Mapped[float] = mapped_column(Float, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)


class SettingRow(Base):
    """One app setting as JSON text."""

    __tablename__ = "settings"
    key: Mapped[str] = mapped_column(String, primary_key=True)
    value: Mapped[str] = mapped_column(Text, nullable=False)


class McpServerRow(Base):
    """An MCP server: transport, config JSON (command, args, URL, secret names, timeout, who turned it off), its
    tools JSON as last listed and the tools' rules JSON."""

    __tablename__ = "mcp_servers"
    name: Mapped[str] = mapped_column(String, primary_key=True)
    transport: Mapped[str] = mapped_column(String, nullable=False)
    config: Mapped[str] = mapped_column(Text, nullable=False)
    tools: Mapped[str] = mapped_column(Text, nullable=False)
    permissions: Mapped[str] = mapped_column(Text, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)


class ConfigRevisionRow(Base):
    """One row: a number the database's triggers raise with every change to agents, providers, models, settings or
    memories (data.db.config_cache keeps reads of those until it moves)."""

    __tablename__ = "config_revision"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    value: Mapped[int] = mapped_column(Integer, nullable=False)


class AttachmentCountRow(Base):
    """A provider's own count of an attachment's input tokens, per content hash and count key (never changes)."""

    __tablename__ = "attachment_counts"
    __table_args__ = (CheckConstraint("tokens > 0", name="ck_attachment_counts_tokens_positive"),)
    sha256: Mapped[str] = mapped_column(String, primary_key=True)
    count_key: Mapped[str] = mapped_column(String, primary_key=True)
    tokens: Mapped[int] = mapped_column(Integer, nullable=False)
    counted_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)


class CutEvidenceRow(Base):
    """The prompt size a model's server last reported far below the estimate (a possible silent cut)."""

    __tablename__ = "cut_evidence"
    model_key: Mapped[str] = mapped_column(String, primary_key=True)
    reported: Mapped[int] = mapped_column(Integer, nullable=False)
    estimate: Mapped[int] = mapped_column(Integer, nullable=False)
    seen_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)


class ServerProbeRow(Base):
    """What a server answered to one window probe (JSON of the fields kept, or null: no answer), and when: kept a day
    (data.db.server_probes). Keyed by the server's URL without credentials and the request."""

    __tablename__ = "server_probes"
    server: Mapped[str] = mapped_column(String, primary_key=True)
    request: Mapped[str] = mapped_column(String, primary_key=True)
    answer: Mapped[str | None] = mapped_column(Text)
    probed_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)


class TurnLeaseRow(Base):
    """The lease of a conversation whose turn is being written (`holding`), or a turn's place in the line for it
    (one turn at a time per conversation, across processes, first come first served)."""

    __tablename__ = "turn_leases"
    session_id: Mapped[str] = mapped_column(String, ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True)
    owner: Mapped[str] = mapped_column(String, primary_key=True)
    holding: Mapped[bool] = mapped_column(Boolean, nullable=False)
    holder: Mapped[str] = mapped_column(String, nullable=False)
    host: Mapped[str] = mapped_column(String, nullable=False)
    pid: Mapped[int] = mapped_column(Integer, nullable=False)
    acquired_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)
    expires_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)


class McpAttachedResourceRow(Base):
    """An MCP resource (server name, URI) attached in a conversation, the sha256 of the contents last sent and when
    it was first attached (data.db.attached_resources); removed with the conversation."""

    __tablename__ = "mcp_attached_resources"
    session_id: Mapped[str] = mapped_column(String, ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True)
    server: Mapped[str] = mapped_column(String, primary_key=True)
    uri: Mapped[str] = mapped_column(String, primary_key=True)
    content_hash: Mapped[str] = mapped_column(String, nullable=False)
    attached_at: Mapped[datetime] = mapped_column(UtcTimestamp, nullable=False)
