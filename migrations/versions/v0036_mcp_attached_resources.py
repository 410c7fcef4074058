"""The MCP resources attached in each conversation, with the hash of the contents last sent (re-read by a later
`palimpsest chat` of the conversation, sent again only when changed).

Revision ID: 0036
Revises: 0035
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0036"
down_revision = "0035"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mcp_attached_resources",
        sa.Column("session_id", sa.String, primary_key=True),
        sa.Column("server", sa.String, primary_key=True),
        sa.Column("uri", sa.String, primary_key=True),
        sa.Column("content_hash", sa.String, nullable=False),
        sa.Column("attached_at", sa.Integer, nullable=False),  # microseconds since the epoch, UTC
        sa.ForeignKeyConstraint(["session_id"], ["sessions.id"], ondelete="CASCADE"),
    )


def downgrade() -> None:
    op.drop_table("mcp_attached_resources")
