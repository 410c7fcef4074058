"""Version-1 schema of the seed design: providers, models, agents, sessions, messages.

Revision ID: 0001
Revises:

Timestamps are INTEGER microseconds since the Unix epoch, UTC (see data.db.rows.UtcTimestamp).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "providers",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("type", sa.String(), nullable=False),
        sa.Column("base_url", sa.String()),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.Integer(), nullable=False),
    )
    op.create_table(
        "models",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("provider_id", sa.String(), nullable=False),
        sa.Column("display_name", sa.String()),
        sa.Column("is_default", sa.Boolean(), nullable=False),
        sa.Column("source", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id", "provider_id"),
        sa.ForeignKeyConstraint(["provider_id"], ["providers.id"], ondelete="CASCADE"),
    )
    op.create_index("ix_models_provider_id", "models", ["provider_id"])
    op.create_table(
        "agents",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("system_prompt", sa.Text()),
        sa.Column("preferred_provider_id", sa.String()),
        sa.Column("preferred_model_id", sa.String()),
        sa.Column("tool_names", sa.Text(), nullable=False),
        sa.Column("is_built_in", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.Integer(), nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("current_agent_id", sa.String()),
        sa.Column("message_count", sa.Integer(), nullable=False),
        sa.Column("last_message_preview", sa.Text()),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("deleted_at", sa.Integer()),
        sa.Column("created_at", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["current_agent_id"], ["agents.id"], ondelete="SET NULL"),
    )
    op.create_index("ix_sessions_updated_at", "sessions", ["updated_at"])
    op.create_table(
        "messages",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("session_id", sa.String(), nullable=False),
        sa.Column("type", sa.String(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("thinking_content", sa.Text()),
        sa.Column("tool_call_id", sa.String()),
        sa.Column("tool_name", sa.String()),
        sa.Column("tool_input", sa.Text()),
        sa.Column("tool_output", sa.Text()),
        sa.Column("tool_status", sa.String()),
        sa.Column("model_id", sa.String()),
        sa.Column("provider_id", sa.String()),
        sa.Column("input_tokens", sa.Integer()),
        sa.Column("output_tokens", sa.Integer()),
        sa.Column("created_at", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["session_id"], ["sessions.id"], ondelete="CASCADE"),
    )
    op.create_index("ix_messages_session_id", "messages", ["session_id"])


def downgrade() -> None:
    op.drop_index("ix_messages_session_id", table_name="messages")
    op.drop_table("messages")
    op.drop_index("ix_sessions_updated_at", table_name="sessions")
    op.drop_table("sessions")
    op.drop_table("agents")
    op.drop_index("ix_models_provider_id", table_name="models")
    op.drop_table("models")
    op.drop_table("providers")
