"""Sessions: token totals, memory-flush marker, compaction count, current provider and model.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

COUNTERS = ("total_input_tokens", "total_output_tokens", "total_cache_read_tokens")


def upgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        for name in COUNTERS:
            batch.add_column(sa.Column(name, sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("flushed_in_compaction_cycle", sa.Boolean(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("compaction_count", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("current_provider_id", sa.String(), nullable=True))
        batch.add_column(sa.Column("current_model_id", sa.String(), nullable=True))
    op.execute("UPDATE sessions SET compaction_count = 1 WHERE compacted_summary IS NOT NULL")


def downgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("current_model_id")
        batch.drop_column("current_provider_id")
        batch.drop_column("compaction_count")
        batch.drop_column("flushed_in_compaction_cycle")
        for name in reversed(COUNTERS):
            batch.drop_column(name)
