"""The providers' own numbers: each attachment's input tokens as a provider's count endpoint gave them (per content
hash and count key: a provider and model family), and the prompt size a server last reported below the estimate
(the evidence a guessed window needs twice before it is believed).

Revision ID: 0024
Revises: 0023
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "attachment_counts",
        sa.Column("sha256", sa.String(), primary_key=True),
        sa.Column("count_key", sa.String(), primary_key=True),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("counted_at", sa.Integer(), nullable=False),
        sa.CheckConstraint("tokens > 0", name="ck_attachment_counts_tokens_positive"),
    )
    op.create_table(
        "cut_evidence",
        sa.Column("model_key", sa.String(), primary_key=True),
        sa.Column("reported", sa.Integer(), nullable=False),
        sa.Column("estimate", sa.Integer(), nullable=False),
        sa.Column("seen_at", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("cut_evidence")
    op.drop_table("attachment_counts")
