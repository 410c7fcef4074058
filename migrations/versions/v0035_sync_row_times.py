"""Sync: when the rows that sync whole (providers, agents, memories, models, MCP servers), the active leaf and the
summary in force were last changed on this device (kept by triggers, as 0033 does for session fields), deletes
included, so the later change wins however late it is sent; and a content hash of each archived tool output (the
full text kept beyond a truncated result), by which sync sends it like an attachment.

The row triggers watch the columns each table has at this revision (a later migration adding one re-creates them).

Revision ID: 0035
Revises: 0033
"""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0035"
down_revision = "0034"
branch_labels = None
depends_on = None

# "now" as in 0033: wall ms, or just past the newest stamp this device has seen; rounded, not truncated (the day
# fraction of julianday() is a double a few hundredths of a ms off: truncated, a change could take the ms before)
_NOW_MS = ("max(CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER), coalesce((SELECT"
           " CAST(substr(value, 2, 13) AS INTEGER) + 1 FROM sync_meta WHERE key = 'clock'), 0))")
_OLD_NOW_MS = ("max(CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER), coalesce((SELECT"
               " CAST(substr(value, 2, 13) AS INTEGER) + 1 FROM sync_meta WHERE key = 'clock'), 0))")
# the session columns 0033's trigger watches
_FIELDS = ("title", "current_agent_id", "is_active", "deleted_at", "created_at", "updated_at",
           "current_provider_id", "current_model_id", "reasoning", "system_prompt", "compaction_count")
# kind, table, key columns (data/sync/tables.py ROW_TABLES)
_ROWS = (("provider", "providers", ("id",)), ("agent", "agents", ("id",)), ("memory", "memories", ("id",)),
         ("model", "models", ("provider_id", "id")), ("mcp_server", "mcp_servers", ("name",)))
_WHOLE, _DELETED = "*", "*deleted*"


def _stamp(kind: str, key: str, field: str) -> str:
    """Statements that set the time of (kind, key, field) to now, dropping the key's other times first."""
    return (f"DELETE FROM sync_field_times WHERE kind = '{kind}' AND key = {key};\n"
            f"INSERT INTO sync_field_times (kind, key, field, ms) VALUES ('{kind}', {key}, '{field}', {_NOW_MS});")


def _session_fields_trigger(now_ms: str) -> None:
    statements = "\n".join(
        f"DELETE FROM sync_field_times WHERE kind = 'session' AND key = NEW.id AND field = '{name}'"
        f" AND OLD.{name} IS NOT NEW.{name};\n"
        f"INSERT INTO sync_field_times (kind, key, field, ms) SELECT 'session', NEW.id, '{name}',"
        f" {now_ms} WHERE OLD.{name} IS NOT NEW.{name};" for name in _FIELDS)
    op.execute("DROP TRIGGER sync_session_field_times")
    op.execute(f"CREATE TRIGGER sync_session_field_times AFTER UPDATE ON sessions BEGIN\n{statements}\nEND")


def upgrade() -> None:
    bind = op.get_bind()
    _session_fields_trigger(_NOW_MS)
    for kind, table, keys in _ROWS:
        columns = [r[1] for r in bind.exec_driver_sql(f"PRAGMA table_info({table})")]
        new_key = f"json_array({', '.join(f'NEW.{k}' for k in keys)})"
        old_key = f"json_array({', '.join(f'OLD.{k}' for k in keys)})"
        changed = " OR ".join(f"OLD.{c} IS NOT NEW.{c}" for c in columns)
        op.execute(f"CREATE TRIGGER sync_{table}_time_insert AFTER INSERT ON {table} BEGIN\n"
                   f"{_stamp(kind, new_key, _WHOLE)}\nEND")
        op.execute(f"CREATE TRIGGER sync_{table}_time_update AFTER UPDATE ON {table} WHEN {changed} BEGIN\n"
                   f"DELETE FROM sync_field_times WHERE kind = '{kind}' AND key = {old_key};\n"
                   f"{_stamp(kind, new_key, _WHOLE)}\nEND")
        op.execute(f"CREATE TRIGGER sync_{table}_time_delete AFTER DELETE ON {table} BEGIN\n"
                   f"{_stamp(kind, old_key, _DELETED)}\nEND")
    # the active leaf: a message made active or inactive (a new message, a branch switched)
    leaf = ("DELETE FROM sync_field_times WHERE kind = 'session' AND key = NEW.session_id AND field = 'leaf';\n"
            f"INSERT INTO sync_field_times (kind, key, field, ms) VALUES ('session', NEW.session_id, 'leaf',"
            f" {_NOW_MS});")
    op.execute(f"CREATE TRIGGER sync_leaf_time_insert AFTER INSERT ON messages WHEN NEW.active = 1 BEGIN\n{leaf}\nEND")
    op.execute("CREATE TRIGGER sync_leaf_time_update AFTER UPDATE OF active ON messages"
               f" WHEN OLD.active IS NOT NEW.active BEGIN\n{leaf}\nEND")
    # the summary in force (its boundary alone moves when a merge renumbers the messages: not a change)
    op.execute("CREATE TRIGGER sync_checkpoint_time AFTER UPDATE OF compacted_summary ON sessions"
               " WHEN OLD.compacted_summary IS NOT NEW.compacted_summary BEGIN\n"
               "DELETE FROM sync_field_times WHERE kind = 'session' AND key = NEW.id AND field = 'checkpoint';\n"
               "INSERT INTO sync_field_times (kind, key, field, ms) VALUES ('session', NEW.id, 'checkpoint',"
               f" {_NOW_MS});\nEND")
    # a conversation deleted: its times go (0033), the time of its delete stays
    op.execute("DROP TRIGGER sync_session_field_times_gone")
    op.execute("CREATE TRIGGER sync_session_field_times_gone AFTER DELETE ON sessions BEGIN\n"
               f"{_stamp('session', 'OLD.id', _DELETED)}\nEND")
    op.add_column("tool_output_archive", sa.Column("sha256", sa.String(), nullable=True))
    rows = bind.exec_driver_sql("SELECT message_id, data FROM tool_output_archive").all()
    if rows:
        bind.exec_driver_sql("UPDATE tool_output_archive SET sha256 = ? WHERE message_id = ?",
                             [(hashlib.sha256(data).hexdigest(), mid) for mid, data in rows])
    op.create_index("ix_tool_output_archive_sha256", "tool_output_archive", ["sha256"])


def downgrade() -> None:
    _session_fields_trigger(_OLD_NOW_MS)
    op.drop_index("ix_tool_output_archive_sha256", "tool_output_archive")
    with op.batch_alter_table("tool_output_archive") as batch:
        batch.drop_column("sha256")
    op.execute("DROP TRIGGER sync_session_field_times_gone")
    op.execute("CREATE TRIGGER sync_session_field_times_gone AFTER DELETE ON sessions BEGIN"
               " DELETE FROM sync_field_times WHERE kind = 'session' AND key = OLD.id; END")
    for name in ("sync_checkpoint_time", "sync_leaf_time_update", "sync_leaf_time_insert"):
        op.execute(f"DROP TRIGGER {name}")
    for _, table, _ in _ROWS:
        for when in ("insert", "update", "delete"):
            op.execute(f"DROP TRIGGER sync_{table}_time_{when}")
