"""Which OpenAI API a provider speaks (Responses or Chat Completions), and a local server's model's trained length
beside the context it is loaded with.

Revision ID: 0015
Revises: 0019
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # NULL = auto: the Responses API on api.openai.com, Chat Completions on any other base URL
    op.add_column("providers", sa.Column("api", sa.String(), nullable=True))
    # NULL = not a local server's model, or not known
    op.add_column("models", sa.Column("trained_window", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("models") as batch:
        batch.drop_column("trained_window")
    with op.batch_alter_table("providers") as batch:
        batch.drop_column("api")
