"""Search covers tool inputs too: the code a model wrote in a tool call (its arguments) is found like a message's text
and a tool's output. messages_fts is made again over content, tool_output and tool_input, and rebuilt.

Revision ID: 0026
Revises: 0025
"""

from __future__ import annotations

from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None

NEW_COLS = "content, tool_output, tool_input"
OLD_COLS = "content, tool_output"


def _drop() -> None:
    for suffix in ("au", "ad", "ai"):
        op.execute(f"DROP TRIGGER IF EXISTS messages_fts_{suffix}")
    op.execute("DROP TABLE IF EXISTS messages_fts")


def _create(cols: str) -> None:
    new = ", ".join(f"new.{c.strip()}" for c in cols.split(","))
    old = ", ".join(f"old.{c.strip()}" for c in cols.split(","))
    for statement in (
        f"CREATE VIRTUAL TABLE messages_fts USING fts5({cols}, content='messages', content_rowid='rowid',"
        " tokenize='unicode61 remove_diacritics 2')",
        f"CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages BEGIN"
        f" INSERT INTO messages_fts(rowid, {cols}) VALUES (new.rowid, {new}); END",
        f"CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN"
        f" INSERT INTO messages_fts(messages_fts, rowid, {cols}) VALUES ('delete', old.rowid, {old}); END",
        f"CREATE TRIGGER messages_fts_au AFTER UPDATE OF {cols} ON messages BEGIN"
        f" INSERT INTO messages_fts(messages_fts, rowid, {cols}) VALUES ('delete', old.rowid, {old});"
        f" INSERT INTO messages_fts(rowid, {cols}) VALUES (new.rowid, {new}); END",
        "INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')",
    ):
        op.execute(statement)


def upgrade() -> None:
    _drop()
    _create(NEW_COLS)


def downgrade() -> None:
    _drop()
    _create(OLD_COLS)
