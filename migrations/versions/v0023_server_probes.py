"""What OpenAI-compatible servers answered to window probes (or that they had no answer), per server URL and
request, with the time asked: a probe is not sent again for a day.

Revision ID: 0023
Revises: 0022
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server_probes",
        sa.Column("server", sa.String(), nullable=False),
        sa.Column("request", sa.String(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("probed_at", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("server", "request"),
    )


def downgrade() -> None:
    op.drop_table("server_probes")
