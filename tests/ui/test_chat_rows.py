"""Rows of the chat list built from stored messages."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.models import Message, MessageType, ToolStatus
from ui.models.chat_rows import RowKind, rows_from_messages

T = datetime(2026, 1, 1, tzinfo=UTC)


def msg(seq: int, type_: MessageType = MessageType.USER, text: str = "", **kw: object) -> Message:
    return Message(f"m{seq}", "s", type_, text or f"text {seq}", T, seq=seq, **kw)  # type: ignore[arg-type]


def conversation(n: int) -> list[Message]:
    return [msg(i, MessageType.USER if i % 2 else MessageType.AI_RESPONSE) for i in range(1, n + 1)]


def kinds(rows: list) -> list[str]:
    return [str(r.kind) for r in rows]


def test_without_a_boundary_every_message_is_a_row_and_there_is_no_divider() -> None:
    rows = rows_from_messages(conversation(4), boundary_seq=None, summarized_count=0, show_originals=False,
                              has_older=False)
    assert kinds(rows) == ["user", "assistant", "user", "assistant"]


def test_divider_sits_at_the_boundary_and_hides_summarized_messages() -> None:
    rows = rows_from_messages(conversation(6), boundary_seq=5, summarized_count=4, show_originals=False,
                              has_older=False)
    assert kinds(rows) == ["divider", "user", "assistant"]
    assert rows[0].text == "4 earlier messages summarized"
    assert [r.seq for r in rows[1:]] == [5, 6]


def test_show_originals_reveals_summarized_messages_dimmed_above_the_divider() -> None:
    rows = rows_from_messages(conversation(6), boundary_seq=5, summarized_count=4, show_originals=True,
                              has_older=False)
    assert kinds(rows) == ["user", "assistant", "user", "assistant", "divider", "user", "assistant"]
    assert all(r.dimmed for r in rows[:4])
    assert not any(r.dimmed for r in rows[5:])


def test_a_pinned_message_behind_the_boundary_stays_visible() -> None:
    messages = conversation(6)
    messages[1] = msg(2, MessageType.AI_RESPONSE, "remember this", pinned=True)
    rows = rows_from_messages(messages, boundary_seq=5, summarized_count=4, show_originals=False, has_older=False)
    assert next(r.text for r in rows if r.kind is not RowKind.DIVIDER) == "remember this"
    assert rows[0].pinned and rows[0].dimmed


def test_a_tool_call_and_its_result_become_one_row_with_size_and_truncation() -> None:
    messages = [
        msg(1, MessageType.USER, "fetch it"),
        msg(2, MessageType.AI_RESPONSE, " "),
        msg(3, MessageType.TOOL_CALL, "", tool_call_id="c1", tool_name="http_request", tool_input='{"url": "u"}'),
        msg(4, MessageType.TOOL_RESULT, "", tool_call_id="c1", tool_output="x" * 100,
            tool_status=ToolStatus.SUCCESS, tool_output_original_chars=5000),
        msg(5, MessageType.AI_RESPONSE, "done"),
    ]
    rows = rows_from_messages(messages, boundary_seq=None, summarized_count=0, show_originals=False, has_older=False)
    assert kinds(rows) == ["user", "tool", "assistant"]
    tool = rows[1]
    assert (tool.tool_name, tool.tool_chars, tool.tool_truncated, tool.tool_running) == ("http_request", 5000, True,
                                                                                       False)
    assert '"url": "u"' in (tool.tool_input or "")


def test_a_tool_call_without_a_result_is_shown_running() -> None:
    messages = [msg(1, MessageType.TOOL_CALL, "", tool_call_id="c1", tool_name="search_memory", tool_input="{}")]
    rows = rows_from_messages(messages, boundary_seq=None, summarized_count=0, show_originals=False, has_older=False)
    assert rows[0].tool_running and rows[0].tool_chars is None


def test_older_pages_are_offered_when_the_first_loaded_message_is_not_the_first() -> None:
    rows = rows_from_messages(conversation(2), boundary_seq=None, summarized_count=0, show_originals=False,
                              has_older=True)
    assert rows[0].kind is RowKind.LOAD_OLDER


def test_an_incomplete_reply_is_kept_and_marked() -> None:
    rows = rows_from_messages([msg(1, MessageType.AI_RESPONSE, "partial", incomplete=True)], boundary_seq=None,
                              summarized_count=0, show_originals=False, has_older=False)
    assert rows[0].incomplete and rows[0].text == "partial"
