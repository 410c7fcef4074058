"""The retirement day a provider's own model list reports for a model (Anthropic's `retires_at`, OpenAI's
`shutdown_date`), kept from the last refresh of the list; NULL when it reported none.

Revision ID: 0039
Revises: 0038
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0039"
down_revision = "0038"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("models", sa.Column("retires_on", sa.String, nullable=True))  # ISO 8601 day; the table is kept


def downgrade() -> None:
    op.execute("ALTER TABLE models DROP COLUMN retires_on")  # SQLite 3.35+: the table and its triggers are kept
