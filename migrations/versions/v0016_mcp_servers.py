"""MCP servers: how to start or reach each one, its tools as last listed, and the rule of each tool.

Revision ID: 0016
Revises: 0017

Secrets (environment and header values) live in the OS keychain; this table holds only their names.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mcp_servers",
        sa.Column("name", sa.String(), primary_key=True),
        sa.Column("transport", sa.String(), nullable=False),
        sa.Column("config", sa.Text(), nullable=False),
        sa.Column("tools", sa.Text(), nullable=False),
        sa.Column("permissions", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("mcp_servers")
