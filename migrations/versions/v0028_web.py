"""Web search: a reply's searches (sources, citations, the provider's blocks) kept with it, and a conversation's own
web search choice (NULL: the agent's applies).

Revision ID: 0028
Revises: 0027
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None

v0022_WATCHED = (  # the columns the revision trigger watches before this revision (0022's, and 0027's end_reason)
    "id", "session_id", "type", "content", "thinking_content", "tool_call_id", "tool_name", "tool_input",
    "tool_output", "tool_status", "model_id", "provider_id", "input_tokens", "output_tokens", "created_at", "seq",
    "pinned", "incomplete", "has_image", "tool_output_original_chars", "reasoning", "reasoning_tokens", "thinking_ms",
    "parent_id", "attachments", "end_reason",
)


WATCHED = (*v0022_WATCHED, "web")  # the revision trigger (0022) watches the new column too


def _revision_trigger(columns: tuple[str, ...]) -> None:
    op.execute("DROP TRIGGER IF EXISTS messages_rev")
    op.execute(
        f"CREATE TRIGGER messages_rev AFTER UPDATE OF {', '.join(columns)} ON messages"
        " BEGIN UPDATE messages SET rev = OLD.rev + 1 WHERE id = NEW.id; END"
    )


def upgrade() -> None:  # plain ALTER TABLE ADD COLUMN: the tables (and their search triggers) stay as they are
    op.add_column("messages", sa.Column("web", sa.Text(), nullable=True))
    op.add_column("sessions", sa.Column("web_search", sa.Boolean(), nullable=True))
    _revision_trigger(WATCHED)


def downgrade() -> None:  # ALTER TABLE DROP COLUMN (SQLite 3.35+): the search triggers stay
    _revision_trigger(v0022_WATCHED)
    op.drop_column("sessions", "web_search")
    op.drop_column("messages", "web")
