"""Where each model's context window comes from, and a separate input limit for models that have one.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("models") as batch:
        batch.add_column(sa.Column("window_source", sa.String(), nullable=True))
        batch.add_column(sa.Column("input_limit", sa.Integer(), nullable=True))
    # rows written before this revision: a user-set window is the user's; a stored, non-guessed fetched one came
    # from the provider's API; the rest from the shipped registry (learned limits cannot be told apart any more)
    op.execute("UPDATE models SET window_source = 'user' WHERE user_window = 1")
    op.execute(
        "UPDATE models SET window_source = 'provider_api' WHERE window_source IS NULL AND source = 'fetched'"
        " AND context_window_size IS NOT NULL AND window_is_guess = 0"
    )
    op.execute("UPDATE models SET window_source = 'registry' WHERE window_source IS NULL")


def downgrade() -> None:
    with op.batch_alter_table("models") as batch:
        batch.drop_column("input_limit")
        batch.drop_column("window_source")
