"""A revision number of the configuration a request is built from (agents, providers, models, settings, memories),
raised by triggers on every change from any process, so a reader may keep what it read until the number moves.

Revision ID: 0021
Revises: 0020
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

TABLES = ("agents", "providers", "models", "settings", "memories")
EVENTS = ("INSERT", "UPDATE", "DELETE")


def upgrade() -> None:
    op.create_table(
        "config_revision",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("value", sa.Integer(), nullable=False),
    )
    op.execute("INSERT INTO config_revision (id, value) VALUES (1, 0)")
    for table in TABLES:
        for event in EVENTS:
            op.execute(
                f"CREATE TRIGGER config_revision_{table}_{event.lower()} AFTER {event} ON {table}"
                " BEGIN UPDATE config_revision SET value = value + 1 WHERE id = 1; END"
            )


def downgrade() -> None:
    for table in TABLES:
        for event in EVENTS:
            op.execute(f"DROP TRIGGER IF EXISTS config_revision_{table}_{event.lower()}")
    op.drop_table("config_revision")
