"""Messages form a tree: each has a parent; a compaction checkpoint keeps its summary and the last message it covers.

Every existing session becomes one branch: each message on the conversation's path follows the one before it, and a
run of messages a retry took off the path hangs, as a branch, from the message the retry answered again. The summary
in force is recorded on the session's newest compaction at its boundary (or on a new "migrated" record).

Revision ID: 0017
Revises: 0015 (0014 on its own branch; re-chained after main's 0019 and 0015 when main was merged)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ALTER TABLE (no table copy): the full-text triggers on messages stay as they are
    op.add_column("messages", sa.Column("parent_id", sa.String(), nullable=True))
    op.create_index("ix_messages_parent_id", "messages", ["parent_id"])
    # the active path, read at every open and every turn: counted and paged from this index alone
    op.create_index("ix_messages_path", "messages", ["session_id", "seq"], sqlite_where=sa.text("active = 1"))
    op.add_column("compactions", sa.Column("summary", sa.Text(), nullable=True))
    op.add_column("compactions", sa.Column("through_message_id", sa.String(), nullable=True))
    conn = op.get_bind()
    parents: list[dict[str, str]] = []
    session_id: str | None = None
    on_path: str | None = None  # the newest message on the path so far
    off_run: str | None = None  # the newest message of the run of replaced messages right before, if any
    rows = conn.execute(sa.text("SELECT session_id, id, active FROM messages ORDER BY session_id, seq")).all()
    for sid, mid, active in rows:
        if sid != session_id:
            session_id, on_path, off_run = sid, None, None
        parent = on_path if active or off_run is None else off_run
        if parent is not None:
            parents.append({"p": parent, "i": mid})
        if active:
            on_path, off_run = mid, None
        else:
            off_run = mid
    if parents:
        conn.execute(sa.text("UPDATE messages SET parent_id = :p WHERE id = :i"), parents)
    _record_summaries(conn)


def _record_summaries(conn: sa.Connection) -> None:
    """The summary in force of each compacted session, on its newest compaction at that boundary (or a new one)."""
    compacted = conn.execute(sa.text(
        "SELECT id, compacted_summary, compact_boundary, updated_at FROM sessions"
        " WHERE compacted_summary IS NOT NULL AND trim(compacted_summary) != '' AND compact_boundary IS NOT NULL"
    )).all()
    for sid, summary, boundary, updated_at in compacted:
        through = conn.execute(sa.text(
            "SELECT id FROM messages WHERE session_id = :s AND active = 1 AND seq < :b ORDER BY seq DESC LIMIT 1"
        ), {"s": sid, "b": boundary}).scalar()
        record = conn.execute(sa.text(
            "SELECT id FROM compactions WHERE session_id = :s AND boundary = :b ORDER BY id DESC LIMIT 1"
        ), {"s": sid, "b": boundary}).scalar()
        values = {"s": sid, "b": boundary, "summary": summary, "through": through, "at": updated_at, "r": record}
        if record is not None:
            conn.execute(sa.text("UPDATE compactions SET summary = :summary, through_message_id = :through"
                                 " WHERE id = :r"), values)
        else:
            conn.execute(sa.text(
                "INSERT INTO compactions (session_id, created_at, boundary, tokens_before, tokens_after,"
                " summary_tokens, trigger, summary, through_message_id)"
                " VALUES (:s, :at, :b, 0, 0, 0, 'migrated', :summary, :through)"), values)


def downgrade() -> None:
    # messages off the active path stay inactive, which is how the older version keeps a replaced reply
    op.drop_column("compactions", "through_message_id")
    op.drop_column("compactions", "summary")
    op.drop_index("ix_messages_path", table_name="messages")
    op.drop_index("ix_messages_parent_id", table_name="messages")
    op.drop_column("messages", "parent_id")
