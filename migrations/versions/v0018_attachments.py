"""Attachments: their metadata on each message (JSON) and one reference row per attached file (for deleting a file
with its last reference). The files themselves live in the data folder's attachments/ directory.

Revision ID: 0018
Revises: 0016 (written against 0014; chained after 0019, 0015, 0017 and 0016 as main merged them)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ALTER TABLE (no table copy): the full-text triggers on messages stay as they are; JSON, NULL = none
    op.add_column("messages", sa.Column("attachments", sa.Text(), nullable=True))
    op.create_table(
        "message_attachments",
        sa.Column("message_id", sa.String(), sa.ForeignKey("messages.id", ondelete="CASCADE"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("message_id", "position"),
    )
    op.create_index("ix_message_attachments_sha256", "message_attachments", ["sha256"])


def downgrade() -> None:
    op.drop_index("ix_message_attachments_sha256", table_name="message_attachments")
    op.drop_table("message_attachments")
    op.drop_column("messages", "attachments")
