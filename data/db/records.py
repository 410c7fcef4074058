"""Rows read with the standard library's sqlite3 as records whose columns are attributes, timestamps as datetimes:
what the mappers of data.db.mappers read, without SQLAlchemy (data/lite, data.db.direct_read)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from data.db.timestamps import at

# the columns stored as integer microseconds since the epoch (data.db.rows_base.UtcTimestamp)
TIMESTAMPS = frozenset({"created_at", "updated_at", "deleted_at", "acquired_at", "expires_at", "probed_at",
                        "seen_at", "counted_at"})

# the Boolean columns (SQLite keeps 0/1): read back as bool, as the rows' Boolean type does (NULL stays None)
BOOLEANS = frozenset({"is_active", "flushed_in_compaction_cycle", "web_search", "is_default", "window_is_guess",
                      "user_window", "is_built_in", "holding", "pinned", "incomplete", "has_image", "active"})


class Record:
    """A row read by column name as attributes (what the mappers of data.db.mappers read), timestamps as datetimes."""

    def __init__(self, names: Sequence[str], values: Sequence[Any]) -> None:
        for name, value in zip(names, values, strict=True):
            if value is not None and name in TIMESTAMPS:
                value = at(value)
            elif value is not None and name in BOOLEANS:
                value = bool(value)
            setattr(self, name, value)

    def __getattr__(self, name: str) -> Any:  # only for the type checker: every column is set in __init__
        raise AttributeError(name)


SESSION_COLUMNS = (  # a session row whole, as data.db.mappers.session_to_domain reads it
    "id, title, current_agent_id, message_count, last_message_preview, is_active, deleted_at, created_at, updated_at,"
    " compacted_summary, compact_boundary, total_input_tokens, total_output_tokens, total_cache_read_tokens,"
    " flushed_in_compaction_cycle, compaction_count, current_provider_id, current_model_id, reasoning, web_search,"
    " system_prompt")


def records(cursor: Any) -> list[Record]:
    """The rest of a cursor's rows as Records."""
    names = [d[0] for d in cursor.description]
    return [Record(names, row) for row in cursor.fetchall()]
