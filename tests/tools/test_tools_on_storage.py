"""The tools over the real SQLite store: FTS memory search, and paging a truncated result's archived original."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from data.storage import Storage
from data.tools import BuiltinTools
from domain.context.truncator import ToolResultTruncator
from domain.models import Message, MessageType, Session
from domain.provider_ports import ToolContext
from tests.tools.fakes import FixedClock


@pytest.fixture()
def storage(tmp_path: Path) -> Iterator[Storage]:
    store = Storage.open(tmp_path / "home")
    now = datetime(2026, 1, 1, tzinfo=UTC)
    store.sessions.create(Session(id="s1", title="t", current_agent_id=None, created_at=now, updated_at=now))
    yield store
    store.close()


async def test_saved_memories_are_found_by_full_text_search_and_odd_queries_do_not_fail(storage: Storage) -> None:
    tools = BuiltinTools(storage.memories, storage.messages, FixedClock())
    ctx = ToolContext("s1", None)
    saved = await tools.execute("save_memory", {"content": 'The skipper drinks "strong" tea; 潮の記録 matters'}, ctx)
    assert not saved.is_error
    [memory] = storage.memories.list()
    assert memory.source_session_id == "s1"
    for query in ("tea", "strong tea", "潮"):
        found = await tools.execute("search_memory", {"query": query}, ctx)
        assert "skipper" in found.output, query
    for query in ('"', "AND", "NEAR(", "*"):
        outcome = await tools.execute("search_memory", {"query": query}, ctx)
        assert not outcome.is_error, (query, outcome.output)


async def test_read_tool_result_pages_past_the_truncation_through_the_archived_original(storage: Storage) -> None:
    tools = BuiltinTools(storage.memories, storage.messages, FixedClock())
    full = "".join(f"{i:06d}\n" for i in range(15_000))  # 105,000 characters
    cut = ToolResultTruncator().truncate(full, "r1")
    storage.messages.add(
        Message(id="r1", session_id="s1", type=MessageType.TOOL_RESULT, tool_name="http_request",
                tool_output=cut.stored, tool_output_original_chars=cut.original_chars),
        full_output=cut.original,
    )
    outcome = await tools.execute("read_tool_result", {"message_id": "r1", "offset": 100_000, "length": 20_000},
                                  ToolContext("s1", None))
    assert not outcome.is_error
    assert "characters 100000-105000 of 105000; end of result" in outcome.output
    assert outcome.output.endswith(full[100_000:])
