"""read_tool_result pages through the full original (or the stored output) and names the next offset."""

from __future__ import annotations

from data.tools import BuiltinTools
from domain.models import Message, MessageType
from domain.provider_ports import ToolContext
from tests.tools.fakes import FakeMemories, FakeMessages, FixedClock

CTX = ToolContext(session_id="s1", agent_id=None)


def setup() -> tuple[BuiltinTools, FakeMessages]:
    messages = FakeMessages()
    return BuiltinTools(FakeMemories(), messages, FixedClock()), messages


def tool_result(mid: str, output: str, session: str = "s1") -> Message:
    return Message(id=mid, session_id=session, type=MessageType.TOOL_RESULT, tool_name="http_request",
                   tool_output=output)


async def test_pages_through_the_full_original_kept_beside_a_truncated_result() -> None:
    tools, messages = setup()
    full = "".join(f"{i:05d}" for i in range(20_000))  # 100,000 chars
    messages.add(tool_result("r1", full[:30_000] + "\n[... truncated ...]"), full_output=full)
    first = await tools.execute("read_tool_result", {"message_id": "r1", "offset": 0, "length": 20_000}, CTX)
    assert not first.is_error
    assert "of 100000" in first.output and "next offset: 20000" in first.output
    assert first.output.endswith(full[:20_000])
    last = await tools.execute("read_tool_result", {"message_id": "r1", "offset": 95_000, "length": 20_000}, CTX)
    assert last.output.endswith(full[95_000:])
    assert "end of result" in last.output


async def test_without_a_full_original_it_reads_the_stored_output() -> None:
    tools, messages = setup()
    messages.add(tool_result("r2", "short output"))
    outcome = await tools.execute("read_tool_result", {"message_id": "r2"}, CTX)
    assert outcome.output.endswith("\nshort output")
    assert "of 12; end of result" in outcome.output


async def test_a_result_of_another_session_is_not_readable() -> None:
    tools, messages = setup()
    messages.add(tool_result("r3", "secret of another conversation", session="s2"))
    outcome = await tools.execute("read_tool_result", {"message_id": "r3"}, CTX)
    assert outcome.is_error and "No tool result" in outcome.output
    assert "secret" not in outcome.output


async def test_a_message_that_is_not_a_tool_result_is_refused() -> None:
    tools, messages = setup()
    messages.add(Message(id="u1", session_id="s1", type=MessageType.USER, content="hi"))
    outcome = await tools.execute("read_tool_result", {"message_id": "u1"}, CTX)
    assert outcome.is_error and "not a tool result" in outcome.output


async def test_bad_offsets_and_lengths_are_error_outcomes() -> None:
    tools, messages = setup()
    messages.add(tool_result("r4", "abc"))
    for args in ({"message_id": "r4", "offset": -1}, {"message_id": "r4", "length": 0},
                 {"message_id": "r4", "offset": 4}, {"message_id": "r4", "offset": "x"}, {}):
        outcome = await tools.execute("read_tool_result", args, CTX)
        assert outcome.is_error, args
