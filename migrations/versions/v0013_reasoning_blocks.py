"""A message's reasoning blocks (thinking with signatures, redacted thinking, thought signatures, reasoning items).

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ALTER TABLE (no table copy): the full-text triggers on messages stay as they are; JSON, NULL = none
    op.add_column("messages", sa.Column("reasoning", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("messages", "reasoning")
