"""Long-term memories with an FTS5 index kept in step by triggers.

Revision ID: 0007
Revises: 0006

The FTS tables use external content keyed by rowid; a later revision that copies the memories table
(batch mode) must finish with `INSERT INTO memories_fts(memories_fts) VALUES('rebuild')`.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

FTS_STATEMENTS = (
    "CREATE VIRTUAL TABLE memories_fts USING fts5(content, content='memories', content_rowid='rowid',"
    " tokenize='unicode61 remove_diacritics 2')",
    "CREATE TRIGGER memories_fts_ai AFTER INSERT ON memories BEGIN"
    " INSERT INTO memories_fts(rowid, content) VALUES (new.rowid, new.content); END",
    "CREATE TRIGGER memories_fts_ad AFTER DELETE ON memories BEGIN"
    " INSERT INTO memories_fts(memories_fts, rowid, content) VALUES ('delete', old.rowid, old.content); END",
    "CREATE TRIGGER memories_fts_au AFTER UPDATE OF content ON memories BEGIN"
    " INSERT INTO memories_fts(memories_fts, rowid, content) VALUES ('delete', old.rowid, old.content);"
    " INSERT INTO memories_fts(rowid, content) VALUES (new.rowid, new.content); END",
)


def upgrade() -> None:
    op.create_table(
        "memories",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("agent_id", sa.String(), nullable=True),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Integer(), nullable=False),
        sa.Column("source_session_id", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["source_session_id"], ["sessions.id"], ondelete="SET NULL"),
    )
    op.create_index("ix_memories_agent_id", "memories", ["agent_id"])
    for statement in FTS_STATEMENTS:
        op.execute(statement)


def downgrade() -> None:
    for trigger in ("memories_fts_au", "memories_fts_ad", "memories_fts_ai"):
        op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    op.execute("DROP TABLE IF EXISTS memories_fts")
    op.drop_index("ix_memories_agent_id", table_name="memories")
    op.drop_table("memories")
