"""The fast plain-row mapping of messages reads every column, in the order it is selected."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from data.db.mappers import MESSAGE_COLUMNS
from data.db.rows import MessageRow
from data.storage import Storage
from domain.models import Message, MessageType, Session, ToolStatus


def test_every_message_column_is_selected_once() -> None:
    assert sorted(MESSAGE_COLUMNS) == sorted(c.name for c in MessageRow.__table__.columns)


def test_a_message_with_every_field_set_reads_back_equal(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path)
    try:
        at = datetime(2026, 5, 1, 9, 30, 12, 345_678, tzinfo=UTC)
        storage.sessions.create(Session("s", "t", None, at, at))
        message = Message(
            id="m", session_id="s", type=MessageType.TOOL_RESULT, content="c", created_at=at, thinking_content="th",
            tool_call_id="call", tool_name="tool", tool_input="{}", tool_output="out", tool_status=ToolStatus.ERROR,
            tool_output_original_chars=99, model_id="model", provider_id="prov", input_tokens=5, output_tokens=6,
            incomplete=True, pinned=True, has_image=True,
        )
        stored = storage.messages.add(message)
        assert storage.messages.since("s", 0) == [stored] == list(storage.messages.pinned("s"))
        assert storage.messages.get("m") == stored
    finally:
        storage.close()
