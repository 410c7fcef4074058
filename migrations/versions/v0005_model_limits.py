"""Models: max output tokens, guessed-window and user-window flags; agents: context overrides.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("models") as batch:
        batch.add_column(sa.Column("max_output_tokens", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("window_is_guess", sa.Boolean(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("user_window", sa.Boolean(), nullable=False, server_default="0"))
    op.execute("UPDATE models SET user_window = 1 WHERE source = 'user' AND context_window_size IS NOT NULL")
    with op.batch_alter_table("agents") as batch:
        batch.add_column(sa.Column("context_overrides", sa.Text(), nullable=False, server_default="{}"))


def downgrade() -> None:
    with op.batch_alter_table("agents") as batch:
        batch.drop_column("context_overrides")
    with op.batch_alter_table("models") as batch:
        batch.drop_column("user_window")
        batch.drop_column("window_is_guess")
        batch.drop_column("max_output_tokens")
