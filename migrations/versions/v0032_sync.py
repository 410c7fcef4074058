"""Sync between devices: what each synced row looked like when last synced (its digest and clock stamp, per field),
how many change files of each other device are applied, and this device's sync settings and clock.

Revision ID: 0032
Revises: 0026
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0032"
down_revision = "0029"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sync_shadow",
        sa.Column("kind", sa.String(), primary_key=True),
        sa.Column("key", sa.String(), primary_key=True),
        sa.Column("field", sa.String(), primary_key=True),
        sa.Column("digest", sa.String(), nullable=False),
        sa.Column("stamp", sa.String(), nullable=False),
    )
    op.create_table(
        "sync_applied",
        sa.Column("device", sa.String(), primary_key=True),
        sa.Column("seq", sa.Integer(), nullable=False),
    )
    op.create_table(
        "sync_meta",
        sa.Column("key", sa.String(), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sync_meta")
    op.drop_table("sync_applied")
    op.drop_table("sync_shadow")
