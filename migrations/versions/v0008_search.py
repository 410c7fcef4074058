"""Full-text search: FTS5 over message content and tool output, and over session titles and summaries.

Revision ID: 0008
Revises: 0007

External content keyed by rowid: a later revision that copies `messages` or `sessions` (batch mode) must
finish with a 'rebuild' of messages_fts / sessions_fts.
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

MESSAGE_COLS = "content, tool_output"
SESSION_COLS = "title, compacted_summary"


def _fts(table: str, cols: str, watched: str) -> tuple[str, ...]:
    fts = f"{table}_fts"
    new = ", ".join(f"new.{c.strip()}" for c in cols.split(","))
    old = ", ".join(f"old.{c.strip()}" for c in cols.split(","))
    return (
        f"CREATE VIRTUAL TABLE {fts} USING fts5({cols}, content='{table}', content_rowid='rowid',"
        " tokenize='unicode61 remove_diacritics 2')",
        f"CREATE TRIGGER {fts}_ai AFTER INSERT ON {table} BEGIN"
        f" INSERT INTO {fts}(rowid, {cols}) VALUES (new.rowid, {new}); END",
        f"CREATE TRIGGER {fts}_ad AFTER DELETE ON {table} BEGIN"
        f" INSERT INTO {fts}({fts}, rowid, {cols}) VALUES ('delete', old.rowid, {old}); END",
        f"CREATE TRIGGER {fts}_au AFTER UPDATE OF {watched} ON {table} BEGIN"
        f" INSERT INTO {fts}({fts}, rowid, {cols}) VALUES ('delete', old.rowid, {old});"
        f" INSERT INTO {fts}(rowid, {cols}) VALUES (new.rowid, {new}); END",
        f"INSERT INTO {fts}({fts}) VALUES ('rebuild')",
    )


def upgrade() -> None:
    for statement in (*_fts("messages", MESSAGE_COLS, MESSAGE_COLS), *_fts("sessions", SESSION_COLS, SESSION_COLS)):
        op.execute(statement)


def downgrade() -> None:
    for table in ("sessions", "messages"):
        for suffix in ("au", "ad", "ai"):
            op.execute(f"DROP TRIGGER IF EXISTS {table}_fts_{suffix}")
        op.execute(f"DROP TABLE IF EXISTS {table}_fts")
