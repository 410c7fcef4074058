"""The seed's MIGRATION_1_2: models.context_window_size with preset values; session summary and boundary.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

PRESET_WINDOWS = {
    "gpt-4o": 128000,
    "gpt-4o-mini": 128000,
    "o1": 200000,
    "o3-mini": 200000,
    "claude-opus-4-5-20251101": 200000,
    "claude-sonnet-4-5-20250929": 200000,
    "claude-haiku-4-5-20251001": 200000,
    "gemini-2.0-flash": 1048576,
    "gemini-2.5-pro": 1048576,
}


def upgrade() -> None:
    with op.batch_alter_table("models") as batch:
        batch.add_column(sa.Column("context_window_size", sa.Integer(), nullable=True))
    models = sa.table("models", sa.column("id", sa.String()), sa.column("context_window_size", sa.Integer()))
    for model_id, window in PRESET_WINDOWS.items():
        op.execute(models.update().where(models.c.id == model_id).values(context_window_size=window))
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("compacted_summary", sa.Text(), nullable=True))
        batch.add_column(sa.Column("compact_boundary", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("compact_boundary")
        batch.drop_column("compacted_summary")
    with op.batch_alter_table("models") as batch:
        batch.drop_column("context_window_size")
