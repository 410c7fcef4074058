"""The fast plain-row mapping of messages reads every column, in the order it is selected."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from data.db.mappers import MESSAGE_COLUMNS
from data.db.rows import MessageRow
from data.storage import Storage
from domain.models import Message, MessageType, ReasoningBlock, ReasoningKind, Session, ToolStatus


def test_every_message_column_is_selected_once() -> None:
    stored = {c.name for c in MessageRow.__table__.columns} - {"rev"}  # rev: the store's own revision (0022)
    assert sorted(MESSAGE_COLUMNS) == sorted(stored)


def test_a_message_with_every_field_set_reads_back_equal(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path)
    try:
        at = datetime(2026, 5, 1, 9, 30, 12, 345_678, tzinfo=UTC)
        storage.sessions.create(Session("s", "t", None, at, at))
        message = Message(
            id="m", session_id="s", type=MessageType.TOOL_RESULT, content="c", created_at=at, thinking_content="th",
            tool_call_id="call", tool_name="tool", tool_input="{}", tool_output="out", tool_status=ToolStatus.ERROR,
            tool_output_original_chars=99, model_id="model", provider_id="prov", input_tokens=5, output_tokens=6,
            incomplete=True, pinned=True, has_image=True, reasoning=(
                ReasoningBlock(ReasoningKind.THINKING, "let me think", signature="sig==", provider_id="anthropic",
                               model_id="claude-x"),
                ReasoningBlock(ReasoningKind.REDACTED, data="opaque", provider_id="anthropic", model_id="claude-x"),
            ),
        )
        stored = storage.messages.add(message)
        assert storage.messages.since("s", 0) == [stored] == list(storage.messages.pinned("s"))
        assert storage.messages.get("m") == stored
    finally:
        storage.close()


def test_reasoning_blocks_of_an_unknown_kind_are_skipped_not_fatal() -> None:
    from data.db.mappers import reasoning_from_json

    text = '[{"kind": "from_the_future", "text": "x"}, {"kind": "thinking", "text": "kept", "signature": "s"}]'
    assert reasoning_from_json(text) == (ReasoningBlock(ReasoningKind.THINKING, "kept", signature="s"),)
    assert reasoning_from_json("not json") == ()
