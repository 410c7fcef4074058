"""A revision number per message, raised by a trigger whenever anything but its place on the active path changes
(from any process), so a reader may keep a message it read until the number moves.

Revision ID: 0022
Revises: 0021
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

# every column of messages except `active` (a branch switch moves the path, not a message) and `rev` itself; a
# column added later must be added here too (tests/data/test_message_revision.py checks the list against the table)
WATCHED = (
    "id", "session_id", "type", "content", "thinking_content", "tool_call_id", "tool_name", "tool_input",
    "tool_output", "tool_status", "model_id", "provider_id", "input_tokens", "output_tokens", "created_at", "seq",
    "pinned", "incomplete", "has_image", "tool_output_original_chars", "reasoning", "reasoning_tokens", "thinking_ms",
    "parent_id", "attachments",
)


def upgrade() -> None:
    op.add_column("messages", sa.Column("rev", sa.Integer(), nullable=False, server_default="0"))
    op.execute(
        f"CREATE TRIGGER messages_rev AFTER UPDATE OF {', '.join(WATCHED)} ON messages"
        " BEGIN UPDATE messages SET rev = OLD.rev + 1 WHERE id = NEW.id; END"
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS messages_rev")
    op.drop_column("messages", "rev")  # SQLite >= 3.35 drops it in place: the other triggers stay
