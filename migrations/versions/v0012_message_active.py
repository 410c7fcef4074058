"""Messages can be taken off the conversation's path (a retried partial reply) without being deleted.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ALTER TABLE (no table copy): the full-text triggers on messages stay as they are
    op.add_column("messages", sa.Column("active", sa.Boolean(), nullable=False, server_default="1"))


def downgrade() -> None:
    op.drop_column("messages", "active")  # SQLite >= 3.35
