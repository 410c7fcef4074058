"""The sync rows: shadows of synced fields, change files applied, this device's sync settings and field times."""

from __future__ import annotations

from sqlalchemy import (
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from data.db.rows_app import AttachmentCountRow as AttachmentCountRow  # re-exported
from data.db.rows_app import CalibrationRow as CalibrationRow  # re-exported
from data.db.rows_app import ConfigRevisionRow as ConfigRevisionRow  # re-exported
from data.db.rows_app import CutEvidenceRow as CutEvidenceRow  # re-exported
from data.db.rows_app import McpServerRow as McpServerRow  # re-exported
from data.db.rows_app import ServerProbeRow as ServerProbeRow  # re-exported
from data.db.rows_app import SettingRow as SettingRow  # re-exported
from data.db.rows_app import TurnLeaseRow as TurnLeaseRow  # re-exported
from data.db.rows_base import Base


class SyncShadowRow(Base):
    """What one synced field of one row was when last synced (sent or received): its digest and clock stamp;
    field '*deleted*' is a tombstone (data/sync)."""

    __tablename__ = "sync_shadow"
    kind: Mapped[str] = mapped_column(String, primary_key=True)
    key: Mapped[str] = mapped_column(String, primary_key=True)
    field: Mapped[str] = mapped_column(String, primary_key=True)
    digest: Mapped[str] = mapped_column(String, nullable=False)
    stamp: Mapped[str] = mapped_column(String, nullable=False)


class SyncAppliedRow(Base):
    """How many change files of another device this one has applied."""

    __tablename__ = "sync_applied"
    device: Mapped[str] = mapped_column(String, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, nullable=False)


class SyncMetaRow(Base):
    """This device's sync settings, id and clock, as JSON text per key."""

    __tablename__ = "sync_meta"
    key: Mapped[str] = mapped_column(String, primary_key=True)
    value: Mapped[str] = mapped_column(Text, nullable=False)


class SyncFieldTimeRow(Base):
    """When this device last changed one synced field (wall ms, past every stamp seen then); kept by triggers."""

    __tablename__ = "sync_field_times"
    kind: Mapped[str] = mapped_column(String, primary_key=True)
    key: Mapped[str] = mapped_column(String, primary_key=True)
    field: Mapped[str] = mapped_column(String, primary_key=True)
    ms: Mapped[int] = mapped_column(Integer, nullable=False)
