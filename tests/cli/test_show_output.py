"""`palimpsest sessions show`: the text of every kind of message, written out as it is rendered."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, cast

from app.cli.sessions_cmd import detail_chunks, render_detail, run_sessions
from domain.models import Message, MessageType, Session, ToolStatus
from domain.usecases.export_session import detail_json_chunks, detail_to_dict
from domain.usecases.show_session import MessageView, SessionDetail

AT = datetime(2026, 3, 4, 5, 6, 59, tzinfo=UTC)


def _detail(count: int = 0) -> SessionDetail:
    session = Session(id="s1", title="Trip", current_agent_id=None, created_at=AT, updated_at=AT,
                      compacted_summary="## Goal\nLisbon", compact_boundary=3, compaction_count=1,
                      current_provider_id="anthropic", current_model_id="claude-x", total_input_tokens=10,
                      total_output_tokens=20, total_cache_read_tokens=5)
    messages = [
        Message("u", "s1", MessageType.USER, "Plan it\r\nplease", created_at=AT, seq=1),
        Message("c", "s1", MessageType.TOOL_CALL, "", created_at=AT, seq=2, tool_name="http_request",
                tool_input='{"url": "x"}'),
        Message("r", "s1", MessageType.TOOL_RESULT, "", created_at=AT, seq=3, tool_name="http_request",
                tool_output="y" * 2_001, tool_status=ToolStatus.SUCCESS),
        Message("a", "s1", MessageType.AI_RESPONSE, "", created_at=AT, seq=4, incomplete=True, active=False),
        Message("e", "s1", MessageType.ERROR, "boom\n", created_at=None, seq=5),
    ]
    messages += [Message(f"m{n}", "s1", MessageType.USER, f"line {n}", created_at=AT, seq=6 + n) for n in range(count)]
    return SessionDetail(session, tuple(MessageView(m, m.seq < 3) for m in messages), ())


def test_every_kind_of_message_is_shown_with_its_role_flags_time_and_indented_body() -> None:
    assert render_detail(_detail()) == "\n".join([
        "Trip  (s1)",
        "model: anthropic/claude-x  messages: 5  compactions: 1",
        "tokens: 10 in, 20 out, 5 cache read",
        "",
        "--- summary ---",
        "## Goal\nLisbon",
        "--- end of summary ---",
        "",
        "~ #1 user  2026-03-04 05:06  id u",
        "    Plan it",
        "    please",
        "~ #2 tool call [http_request]  2026-03-04 05:06  id c",
        '    {"url": "x"}',
        "  #3 tool result [http_request]  2026-03-04 05:06  id r",
        "    " + "y" * 2_000,
        "    … 1 more characters (all of them: sessions show ID --json)",
        "  #4 assistant (incomplete) (another branch: off the active path)  2026-03-04 05:06  id a",
        "    ",
        "  #5 error    id e",
        "    boom",
        "",
        "~ = summarized: kept in the database, sent only through the summary",
    ])


class _Recorder(io.StringIO):
    """Standard output that remembers each write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


class _Shows:
    """The one use case `sessions show` calls."""

    def __init__(self, detail: SessionDetail) -> None:
        self.detail = detail

    def show_session(self, session_id: str, *, include_inactive: bool = False) -> SessionDetail:
        return self.detail


def test_a_long_session_is_written_as_it_is_rendered_not_in_one_piece() -> None:
    detail = _detail(1_200)
    out = _Recorder()
    args = argparse.Namespace(action="show", id="s1", json=False, all=False)
    assert asyncio.run(run_sessions(cast(Any, _Shows(detail)), args, out, io.StringIO())) == 0
    assert out.getvalue() == render_detail(detail) + "\n"
    assert len(out.writes) >= 4 and out.writes[0].startswith("Trip  (s1)\n")
    assert max(len(w) for w in out.writes) < len(out.getvalue()) / 2
    assert "\n".join(detail_chunks(detail, per_chunk=7)) == render_detail(detail)


def test_show_json_is_written_as_it_is_encoded_and_is_the_same_text_as_one_dumps() -> None:
    base = _detail(1_200)
    tricky = replace(base.session, title='Zürich "messages": [] ✓\nline two')
    detail = SessionDetail(tricky, base.messages, base.compactions)
    out = _Recorder()
    args = argparse.Namespace(action="show", id="s1", json=True, all=False)
    assert asyncio.run(run_sessions(cast(Any, _Shows(detail)), args, out, io.StringIO())) == 0
    assert out.getvalue() == json.dumps(detail_to_dict(detail), ensure_ascii=False, indent=2) + "\n"
    assert max(len(w) for w in out.writes) < len(out.getvalue()) / 2


def test_show_json_pieces_join_to_one_dumps_for_no_one_or_many_messages() -> None:
    full = _detail(7)
    for count in (0, 1, 5, 12):
        detail = SessionDetail(full.session, full.messages[:count], full.compactions)
        expected = json.dumps(detail_to_dict(detail), ensure_ascii=False, indent=2)
        assert "".join(detail_json_chunks(detail, per_chunk=2)) == expected
