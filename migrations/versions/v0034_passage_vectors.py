"""Semantic search (optional): each document passage's embedding, stored once per embedding model.

Revision ID: 0034
Revises: 0033
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0034"
down_revision = "0033"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "passage_vectors",
        sa.Column("passage_id", sa.Integer, primary_key=True),
        sa.Column("model", sa.String, primary_key=True),
        sa.Column("vector", sa.LargeBinary, nullable=False),
        sa.ForeignKeyConstraint(["passage_id"], ["document_passages.id"], ondelete="CASCADE"),
    )


def downgrade() -> None:
    op.drop_table("passage_vectors")
