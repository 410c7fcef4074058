"""Messages mapped from plain rows are the very objects the constructor makes (the fast path fills __dict__)."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime

import pytest

from data.db import mappers
from data.db.mappers import MESSAGE_COLUMNS, message_from_row
from domain.attachment import Attachment, AttachmentKind
from domain.models import Message, MessageType, ReasoningBlock, ReasoningKind, ReplyEnd, ToolStatus

AT = datetime(2026, 5, 1, 9, 30, 12, 345_678, tzinfo=UTC)
REASONING = json.dumps([{"kind": "thinking", "text": "hm", "signature": "sig", "provider_id": "anthropic",
                         "model_id": "claude-x"}])
ATTACHMENTS = json.dumps([{"sha256": "ab" * 32, "name": "shot.png", "media_type": "image/png", "kind": "image",
                           "size": 1234, "width": 640, "height": 480}])


def _row(**changes: object) -> tuple[object, ...]:
    values: dict[str, object] = {
        "id": "m", "session_id": "s", "type": "tool_result", "content": "c", "thinking_content": "th",
        "tool_call_id": "call", "tool_name": "tool", "tool_input": "{}", "tool_output": "out", "tool_status": "error",
        "model_id": "model", "provider_id": "prov", "input_tokens": 5, "output_tokens": 6, "created_at": AT, "seq": 7,
        "pinned": 1, "incomplete": 1, "has_image": 0, "tool_output_original_chars": 99, "active": 0,
        "reasoning": REASONING, "reasoning_tokens": 40, "thinking_ms": 1_500, "parent_id": "p",
        "attachments": ATTACHMENTS, "web": None, "end_reason": "cut", **changes,
    }
    return tuple(values[name] for name in MESSAGE_COLUMNS)


EXPECTED = Message(
    id="m", session_id="s", type=MessageType.TOOL_RESULT, content="c", created_at=AT, seq=7, thinking_content="th",
    tool_call_id="call", tool_name="tool", tool_input="{}", tool_output="out", tool_status=ToolStatus.ERROR,
    tool_output_original_chars=99, model_id="model", provider_id="prov", input_tokens=5, output_tokens=6,
    incomplete=True, pinned=True, has_image=False, active=False, parent_id="p",
    reasoning=(ReasoningBlock(ReasoningKind.THINKING, "hm", signature="sig", provider_id="anthropic",
                              model_id="claude-x"),),
    reasoning_tokens=40, thinking_ms=1_500,
    attachments=(Attachment("ab" * 32, "shot.png", "image/png", AttachmentKind.IMAGE, 1234, width=640, height=480),),
    end_reason=ReplyEnd.CUT,
)


@pytest.mark.parametrize("plain", [True, False])
def test_a_mapped_row_equals_the_constructed_message_field_by_field(plain: bool,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mappers, "_PLAIN_MESSAGE", plain)
    message = message_from_row(_row())
    assert message == EXPECTED and hash(message) == hash(EXPECTED)
    assert dataclasses.asdict(message) == dataclasses.asdict(EXPECTED)
    assert vars(message) == vars(EXPECTED)  # no field missing, none extra, in the constructor's order
    assert list(vars(message)) == [f.name for f in dataclasses.fields(Message)]


def test_the_fast_path_is_taken_and_its_messages_stay_frozen() -> None:
    assert mappers._PLAIN_MESSAGE
    message = message_from_row(_row(tool_status=None, reasoning=None, type="user", active=1, attachments=None))
    assert message.attachments == ()
    assert message.tool_status is None and message.reasoning == () and message.type is MessageType.USER
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.content = "changed"  # type: ignore[misc]
    assert dataclasses.replace(message, content="x").content == "x"


@pytest.mark.parametrize("micros", [0, 1, 999_999, 1_746_091_812_345_678, -1, -86_400_000_001, 253_402_300_799_999_999])
def test_stored_microseconds_read_back_as_the_exact_utc_datetime(micros: int) -> None:
    from sqlalchemy.dialects import sqlite

    from data.db.rows import UtcTimestamp

    seconds, rest = divmod(micros, 1_000_000)
    expected = datetime.fromtimestamp(seconds, tz=UTC).replace(microsecond=rest)
    read = UtcTimestamp().process_result_value(micros, sqlite.dialect())
    assert read == expected and read is not None and read.tzinfo is UTC
    assert UtcTimestamp().process_bind_param(read, sqlite.dialect()) == micros
