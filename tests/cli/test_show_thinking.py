"""`chat --show-thinking` prints the model's reasoning on stderr; the Markdown export folds it above the reply."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from app.cli.chat_printer import TextChatPrinter
from app.cli.parser import build_parser
from domain.events import ResponseComplete, TextDelta, ThinkingDelta
from domain.models import Message, MessageType, Session, Usage
from domain.usecases.export_session import detail_to_markdown
from domain.usecases.show_session import MessageView, SessionDetail


def _play(printer: TextChatPrinter) -> None:
    for event in (ThinkingDelta("Check the "), ThinkingDelta("tide table."), TextDelta("High tide is at 14:05."),
                  ResponseComplete("r1", Usage())):
        printer.event(event)


def test_thinking_goes_to_stderr_only_when_asked_and_the_reply_stays_alone_on_stdout() -> None:
    out, err = io.StringIO(), io.StringIO()
    _play(TextChatPrinter(out, err, show_thinking=True))
    assert out.getvalue() == "High tide is at 14:05.\n"
    assert err.getvalue().startswith("[thinking] Check the tide table.\n")
    quiet_out, quiet_err = io.StringIO(), io.StringIO()
    _play(TextChatPrinter(quiet_out, quiet_err))
    assert quiet_out.getvalue() == "High tide is at 14:05.\n" and "tide table" not in quiet_err.getvalue()
    assert build_parser().parse_args(["chat", "--show-thinking", "hi"]).show_thinking


def test_the_markdown_export_folds_the_thinking_above_the_reply() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    session = Session("s1", "Tides", None, at, at)
    reply = Message("r1", "s1", MessageType.AI_RESPONSE, "High tide is at 14:05.", created_at=at, seq=2,
                    thinking_content="Check the tide table.")
    text = detail_to_markdown(SessionDetail(session, (MessageView(reply, False),), ()))
    folded = "<details><summary>Thinking</summary>\n\nCheck the tide table.\n\n</details>\n\nHigh tide is at 14:05."
    assert folded in text
