"""A conversation's own reasoning level (off / auto / low / medium / high / max), over its agent's and the app's;
a reply's reasoning tokens and thinking time (shown on its Thinking section).

Revision ID: 0019
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # NULL = the agent's (or the app's) setting applies, as it did before this revision
    op.add_column("sessions", sa.Column("reasoning", sa.String(), nullable=True))
    # NULL on replies stored before: their reasoning's size and time were not recorded
    op.add_column("messages", sa.Column("reasoning_tokens", sa.Integer(), nullable=True))
    op.add_column("messages", sa.Column("thinking_ms", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("messages", "thinking_ms")
    op.drop_column("messages", "reasoning_tokens")
    op.drop_column("sessions", "reasoning")  # SQLite >= 3.35 drops it in place: the search triggers stay
