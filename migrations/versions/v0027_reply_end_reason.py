"""Why a reply kept incomplete ended early: "stopped" (by the user) or "cut" (by a failure), so the caption says so
after a restart too, not only while the turn is on screen. NULL: a complete reply, or one stored before this
revision (not known). The messages revision trigger (0022) watches the new column too.

Revision ID: 0027
Revises: 0026
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None

WATCHED_BEFORE = (  # the columns 0022's trigger watches (every column of messages but `active` and `rev`)
    "id", "session_id", "type", "content", "thinking_content", "tool_call_id", "tool_name", "tool_input",
    "tool_output", "tool_status", "model_id", "provider_id", "input_tokens", "output_tokens", "created_at", "seq",
    "pinned", "incomplete", "has_image", "tool_output_original_chars", "reasoning", "reasoning_tokens", "thinking_ms",
    "parent_id", "attachments",
)


def _watch(columns: tuple[str, ...]) -> None:
    op.execute("DROP TRIGGER IF EXISTS messages_rev")
    op.execute(
        f"CREATE TRIGGER messages_rev AFTER UPDATE OF {', '.join(columns)} ON messages"
        " BEGIN UPDATE messages SET rev = OLD.rev + 1 WHERE id = NEW.id; END"
    )


def upgrade() -> None:
    op.add_column("messages", sa.Column("end_reason", sa.String(), nullable=True))
    _watch((*WATCHED_BEFORE, "end_reason"))


def downgrade() -> None:
    _watch(WATCHED_BEFORE)  # first: SQLite does not drop a column a trigger names
    op.drop_column("messages", "end_reason")
