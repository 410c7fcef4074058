"""Lighter writes for every chat turn: the session's change times (0033, 0035) kept by one trigger per field, which
fires only when an update sets that field and changes it (the one trigger on every update of a session ran its 22
statements for each message stored and each usage added), and the messages' index on session_id alone dropped
(the unique index on session_id and seq serves every query it served; each insert wrote a page of it).

The stamps are the same: each field's time is set, its old one dropped first, exactly when the field changes.

Revision ID: 0037
Revises: 0036
"""

from __future__ import annotations

from alembic import op

revision = "0037"
down_revision = "0036"
branch_labels = None
depends_on = None

# as in 0035: wall ms, or just past the newest stamp this device has seen (rounded, not truncated)
_NOW_MS = ("max(CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER), coalesce((SELECT"
           " CAST(substr(value, 2, 13) AS INTEGER) + 1 FROM sync_meta WHERE key = 'clock'), 0))")
# the session columns 0033's and 0035's trigger watches
_FIELDS = ("title", "current_agent_id", "is_active", "deleted_at", "created_at", "updated_at",
           "current_provider_id", "current_model_id", "reasoning", "system_prompt", "compaction_count")


def _field_trigger(name: str) -> str:
    return (f"CREATE TRIGGER sync_session_{name}_time AFTER UPDATE OF {name} ON sessions"
            f" WHEN OLD.{name} IS NOT NEW.{name} BEGIN\n"
            f"DELETE FROM sync_field_times WHERE kind = 'session' AND key = NEW.id AND field = '{name}';\n"
            f"INSERT INTO sync_field_times (kind, key, field, ms) VALUES ('session', NEW.id, '{name}', {_NOW_MS});\n"
            "END")


def _one_trigger() -> str:
    """0035's trigger, for the downgrade."""
    statements = "\n".join(
        f"DELETE FROM sync_field_times WHERE kind = 'session' AND key = NEW.id AND field = '{name}'"
        f" AND OLD.{name} IS NOT NEW.{name};\n"
        f"INSERT INTO sync_field_times (kind, key, field, ms) SELECT 'session', NEW.id, '{name}',"
        f" {_NOW_MS} WHERE OLD.{name} IS NOT NEW.{name};" for name in _FIELDS)
    return f"CREATE TRIGGER sync_session_field_times AFTER UPDATE ON sessions BEGIN\n{statements}\nEND"


def upgrade() -> None:
    op.execute("DROP TRIGGER sync_session_field_times")
    for name in _FIELDS:
        op.execute(_field_trigger(name))
    op.drop_index("ix_messages_session_id", table_name="messages")


def downgrade() -> None:
    op.create_index("ix_messages_session_id", "messages", ["session_id"])
    for name in _FIELDS:
        op.execute(f"DROP TRIGGER sync_session_{name}_time")
    op.execute(_one_trigger())
