"""Sync: when each synced session field was last changed on this device (kept by a trigger, whatever wrote it), so
the later edit wins however late it is sent. The time is the wall clock in ms, or just past the newest stamp this
device has seen when the wall clock is behind it (a hybrid logical clock read at the change).

Revision ID: 0033
Revises: 0032
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None

# the session columns that sync field by field (data/sync/tables.py SESSION_FIELDS at this revision)
_FIELDS = ("title", "current_agent_id", "is_active", "deleted_at", "created_at", "updated_at",
           "current_provider_id", "current_model_id", "reasoning", "system_prompt", "compaction_count")
_NOW_MS = ("max(CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER), coalesce((SELECT"
           " CAST(substr(value, 2, 13) AS INTEGER) + 1 FROM sync_meta WHERE key = 'clock'), 0))")


def upgrade() -> None:
    op.create_table(
        "sync_field_times",
        sa.Column("kind", sa.String(), primary_key=True),
        sa.Column("key", sa.String(), primary_key=True),
        sa.Column("field", sa.String(), primary_key=True),
        sa.Column("ms", sa.Integer(), nullable=False),
    )
    # a DELETE then a plain INSERT, not INSERT OR REPLACE: inside a foreign key's action (an agent deleted sets its
    # sessions' current_agent_id to NULL) SQLite applies the outer statement's ABORT, and the REPLACE failed
    statements = "\n".join(
        f"DELETE FROM sync_field_times WHERE kind = 'session' AND key = NEW.id AND field = '{name}'"
        f" AND OLD.{name} IS NOT NEW.{name};\n"
        f"INSERT INTO sync_field_times (kind, key, field, ms) SELECT 'session', NEW.id, '{name}',"
        f" {_NOW_MS} WHERE OLD.{name} IS NOT NEW.{name};" for name in _FIELDS)
    op.execute(f"CREATE TRIGGER sync_session_field_times AFTER UPDATE ON sessions BEGIN\n{statements}\nEND")
    op.execute("CREATE TRIGGER sync_session_field_times_gone AFTER DELETE ON sessions BEGIN"
               " DELETE FROM sync_field_times WHERE kind = 'session' AND key = OLD.id; END")


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS sync_session_field_times_gone")
    op.execute("DROP TRIGGER IF EXISTS sync_session_field_times")
    op.drop_table("sync_field_times")
