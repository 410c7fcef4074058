"""Search indexes new messages in batches: a stored message's row id goes to a backlog (messages_fts_pending) instead
of through the full-text index in the same statement, and the backlog is indexed in one statement, before any
search and once it holds a batch (data.db.search_backlog). One message's index write (its tokens, a new index
segment, the merges that follow) cost about a third of its write transaction; a batch writes one segment.

The triggers keep the index and the backlog consistent: a message edited or deleted while waiting is left out of
the index's own delete (the index never held it; an external-content table's 'delete' of a row it does not hold
would corrupt it), and a deleted message leaves the backlog. The index holds every message not in the backlog.

Revision ID: 0038
Revises: 0037
"""

from __future__ import annotations

from alembic import op

revision = "0038"
down_revision = "0037"
branch_labels = None
depends_on = None

_COLS = "content, tool_output, tool_input"
_NEW = "new.content, new.tool_output, new.tool_input"
_OLD = "old.content, old.tool_output, old.tool_input"
_WAITING = "EXISTS (SELECT 1 FROM messages_fts_pending WHERE id = old.rowid)"
_INDEX_ALL = (f"INSERT INTO messages_fts(rowid, {_COLS}) SELECT m.rowid, m.content, m.tool_output, m.tool_input"
              " FROM messages_fts_pending p JOIN messages m ON m.rowid = p.id ORDER BY p.id")


def _drop() -> None:
    for suffix in ("ai", "ad", "au"):
        op.execute(f"DROP TRIGGER messages_fts_{suffix}")


def upgrade() -> None:
    _drop()
    for statement in (
        "CREATE TABLE messages_fts_pending (id INTEGER PRIMARY KEY)",  # a message's rowid, waiting to be indexed
        "CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages BEGIN"
        " INSERT OR IGNORE INTO messages_fts_pending(id) VALUES (new.rowid); END",
        # one trigger, in this order: the index's delete only for a message it holds, then the backlog's
        f"CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN"
        f" INSERT INTO messages_fts(messages_fts, rowid, {_COLS}) SELECT 'delete', old.rowid, {_OLD}"
        f" WHERE NOT {_WAITING};"
        " DELETE FROM messages_fts_pending WHERE id = old.rowid; END",
        # a message still waiting is indexed as it is when its turn comes: nothing to do for it here
        f"CREATE TRIGGER messages_fts_au AFTER UPDATE OF {_COLS} ON messages WHEN NOT {_WAITING} BEGIN"
        f" INSERT INTO messages_fts(messages_fts, rowid, {_COLS}) VALUES ('delete', old.rowid, {_OLD});"
        f" INSERT INTO messages_fts(rowid, {_COLS}) VALUES (new.rowid, {_NEW}); END",
    ):
        op.execute(statement)


def downgrade() -> None:
    op.execute(_INDEX_ALL)  # what waited is indexed before the per-row triggers come back
    _drop()
    op.execute("DROP TABLE messages_fts_pending")
    for statement in (
        f"CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages BEGIN"
        f" INSERT INTO messages_fts(rowid, {_COLS}) VALUES (new.rowid, {_NEW}); END",
        f"CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN"
        f" INSERT INTO messages_fts(messages_fts, rowid, {_COLS}) VALUES ('delete', old.rowid, {_OLD}); END",
        f"CREATE TRIGGER messages_fts_au AFTER UPDATE OF {_COLS} ON messages BEGIN"
        f" INSERT INTO messages_fts(messages_fts, rowid, {_COLS}) VALUES ('delete', old.rowid, {_OLD});"
        f" INSERT INTO messages_fts(rowid, {_COLS}) VALUES (new.rowid, {_NEW}); END",
    ):
        op.execute(statement)
