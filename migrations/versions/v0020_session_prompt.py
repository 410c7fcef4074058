"""A conversation's own system prompt, over its agent's.

Revision ID: 0020
Revises: 0018
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # NULL = the agent's prompt applies, as it did before this revision
    op.add_column("sessions", sa.Column("system_prompt", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("sessions", "system_prompt")  # SQLite >= 3.35 drops it in place: the search triggers stay
