"""A partial index on pinned messages, so loading them stays cheap in a session of many thousand messages.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_messages_pinned", "messages", ["session_id", "seq"], sqlite_where=sa.text("pinned = 1")
    )


def downgrade() -> None:
    op.drop_index("ix_messages_pinned", table_name="messages")
