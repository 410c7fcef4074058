"""What each model accepts (thinking form, effort levels, images, PDFs, tools) and where each value came from.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # JSON, NULL = not known yet: presets get theirs from the registry at the next start, listed models at the next
    # `models list --refresh`, any other model from the registry's family patterns when it is used
    op.add_column("models", sa.Column("capabilities", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("models", "capabilities")
