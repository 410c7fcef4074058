"""Messages: per-session seq (backfilled by created_at then rowid), pinned, incomplete, has_image, original size.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

FLAGS = ("pinned", "incomplete", "has_image")


def upgrade() -> None:
    with op.batch_alter_table("messages") as batch:
        batch.add_column(sa.Column("seq", sa.Integer(), nullable=False, server_default="0"))
        for flag in FLAGS:
            batch.add_column(sa.Column(flag, sa.Boolean(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("tool_output_original_chars", sa.Integer(), nullable=True))
    op.execute(
        "UPDATE messages SET seq = (SELECT numbered.n FROM ("
        " SELECT rowid AS rid, ROW_NUMBER() OVER (PARTITION BY session_id ORDER BY created_at, rowid) AS n"
        " FROM messages) AS numbered WHERE numbered.rid = messages.rowid)"
    )
    op.create_index("ix_messages_session_seq", "messages", ["session_id", "seq"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_messages_session_seq", table_name="messages")
    with op.batch_alter_table("messages") as batch:
        batch.drop_column("tool_output_original_chars")
        for flag in reversed(FLAGS):
            batch.drop_column(flag)
        batch.drop_column("seq")
