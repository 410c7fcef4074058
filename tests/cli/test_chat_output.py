"""The chat printers: the --jsonl mapping of every event (the CLI contract) and the plain-text rendering."""

from __future__ import annotations

import io
import json

import pytest

from app.cli.chat import read_message
from app.cli.chat_printer import JsonlChatPrinter, TextChatPrinter
from domain.errors import InvalidInput
from domain.events import (
    ChatError,
    CompactCompleted,
    CompactStarted,
    MemoryFlushed,
    ResponseComplete,
    TextDelta,
    ToolCallStarted,
    ToolResultStored,
)
from domain.models import Usage

EVENTS = [
    TextDelta("潮"),
    ToolCallStarted("c1", "http_request", {"url": "http://x"}),
    ToolResultStored("c1", "http_request", 30_120, True, False, "m9"),
    ResponseComplete("m10", Usage(input_tokens=100, output_tokens=20, cache_read_tokens=80, cache_write_tokens=5)),
    CompactStarted(),
    CompactCompleted(True, False, 7000, 2100, 300, ""),
    MemoryFlushed(2),
    ChatError("context_overflow", "Too long."),
]


def test_jsonl_lines_carry_exactly_the_contract_fields() -> None:
    out = io.StringIO()
    printer = JsonlChatPrinter(out)
    printer.session("s1")
    for event in EVENTS:
        printer.event(event)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines == [
        {"type": "session", "session_id": "s1"},
        {"type": "text_delta", "text": "潮"},
        {"type": "tool_call", "name": "http_request", "input": {"url": "http://x"}},
        {"type": "tool_result", "name": "http_request", "chars": 30_120, "truncated": True},
        {"type": "response_complete", "usage": {"input_tokens": 100, "output_tokens": 20, "cache_read_tokens": 80,
                                                "reasoning_tokens": 0}},
        {"type": "compact_started"},
        {"type": "compact_completed", "did_compact": True, "fallback": False, "tokens_before": 7000,
         "tokens_after": 2100},
        {"type": "memory_flush", "saved": 2},
        {"type": "error", "kind": "context_overflow", "message": "Too long."},
    ]
    assert "潮" in out.getvalue()  # readable, not \u-escaped


def test_text_mode_streams_the_reply_to_stdout_and_notices_to_stderr() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = TextChatPrinter(out, err)
    for event in EVENTS:
        printer.event(event)
    assert out.getvalue() == "潮\n"
    notices = err.getvalue()
    assert "[tool: http_request]" in notices
    assert "[tool http_request: 30120 characters, truncated]" in notices
    assert "[context compacted: 7000 → 2100 tokens]" in notices
    assert "[saved 2 memories]" in notices
    assert notices.rstrip().endswith("palimpsest: Too long.")


def test_text_mode_says_nothing_about_a_compaction_check_that_did_nothing() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = TextChatPrinter(out, err)
    for event in (TextDelta("ok"), ResponseComplete("m1", Usage()), CompactStarted(), CompactCompleted(False)):
        printer.event(event)
    assert (out.getvalue(), err.getvalue()) == ("ok\n", "")


def test_an_interrupted_reply_ends_its_line_and_says_it_was_kept() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = TextChatPrinter(out, err)
    printer.event(TextDelta("half a rep"))
    printer.interrupted()
    assert out.getvalue() == "half a rep\n"
    assert "partial reply was kept" in err.getvalue()


def test_a_dash_reads_the_message_from_standard_input_and_blank_messages_are_refused() -> None:
    assert read_message("-", io.StringIO("from a pipe\n")) == "from a pipe\n"
    assert read_message("hello", io.StringIO("ignored")) == "hello"
    with pytest.raises(InvalidInput, match="empty"):
        read_message("-", io.StringIO("  \n"))


def test_sessions_show_text_clips_long_tool_output_but_json_keeps_it_whole() -> None:
    from datetime import UTC, datetime

    from app.cli.sessions_cmd import render_detail
    from domain.models import Message, MessageType, Session
    from domain.usecases.export_session import detail_to_dict
    from domain.usecases.show_session import MessageView, SessionDetail

    at = datetime(2026, 1, 1, tzinfo=UTC)
    session = Session(id="s1", title="T", current_agent_id=None, created_at=at, updated_at=at)
    result = Message(id="r", session_id="s1", type=MessageType.TOOL_RESULT, tool_name="http_request",
                     tool_output="x" * 5_000, seq=1)
    detail = SessionDetail(session, (MessageView(result, False),), ())
    text = render_detail(detail)
    assert "x" * 2_000 in text and "x" * 2_001 not in text
    assert "3000 more characters" in text
    assert detail_to_dict(detail)["messages"][0]["tool_output"] == "x" * 5_000


def test_a_warning_is_a_warning_event_in_jsonl_and_a_warning_line_on_stderr() -> None:
    from app.cli.jsonl import event_record
    from domain.events import Notice

    assert event_record(Notice("The server cuts.", warning=True)) == {"type": "warning", "message": "The server cuts."}
    assert event_record(Notice("Sent again.")) == {"type": "notice", "message": "Sent again."}
    out, err = io.StringIO(), io.StringIO()
    TextChatPrinter(out, err).event(Notice("The server cuts.", warning=True))
    assert (out.getvalue(), err.getvalue()) == ("", "palimpsest: warning: The server cuts.\n")
