"""A turn's writes on the real SQLite store: a round (reply, tool calls, usage) is stored whole or not at all."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.container import Container
from data.storage import Storage
from domain.chat.turn_store import TurnStore
from domain.models import Message, MessageType, Usage
from tests.fakes import FakeApiKeyStorage
from tests.fakes_turn import FakeAdapterFactory, reply, tool_round


class DiskFullOnToolCalls:
    """The SQL message repository, except that storing a tool call fails like a full disk would."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.failed = 0

    def add(self, message: Message, *, full_output: str | None = None) -> Message:
        stored = self._inner.add(message, full_output=full_output)
        if message.type is MessageType.TOOL_CALL:
            self.failed += 1
            raise OSError(28, "No space left on device")
        return stored

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    opened = Storage.open(tmp_path / "home")
    yield opened
    opened.close()


def _session(storage: Storage) -> str:
    container = Container(storage, FakeApiKeyStorage(), FakeAdapterFactory())
    return container.create_session().id


def test_a_round_that_fails_midway_leaves_nothing_of_itself_in_the_database(storage: Storage) -> None:
    session_id = _session(storage)
    failing = DiskFullOnToolCalls(storage.messages)
    turns = TurnStore(storage.unit_of_work, storage.sessions, failing)  # type: ignore[arg-type]
    reply_message = Message("r1", session_id, MessageType.AI_RESPONSE, "Let me look.")
    call = Message("c1", session_id, MessageType.TOOL_CALL, tool_call_id="t1", tool_name="http_request",
                   tool_input="{}")
    with pytest.raises(OSError, match="No space"):
        turns.save_round(reply_message, [call], Usage(input_tokens=1_000, output_tokens=50))
    assert failing.failed == 1
    assert storage.messages.snapshot(session_id) == []  # the reply written before the failure was rolled back
    session = storage.sessions.get(session_id)
    assert session is not None and session.message_count == 0 and session.total_input_tokens == 0


def test_a_round_that_succeeds_is_stored_with_its_calls_usage_count_and_preview(storage: Storage) -> None:
    session_id = _session(storage)
    turns = TurnStore(storage.unit_of_work, storage.sessions, storage.messages)
    stored = turns.save_round(
        Message("r1", session_id, MessageType.AI_RESPONSE, "Let me look."),
        [Message("c1", session_id, MessageType.TOOL_CALL, tool_call_id="t1", tool_name="x", tool_input="{}")],
        Usage(input_tokens=1_000, output_tokens=50),
    )
    assert [m.seq for m in stored.messages] == [1, 2]
    session = storage.sessions.get(session_id)
    assert session is not None and session.message_count == 2 and session.total_input_tokens == 1_000
    assert session.last_message_preview == "Let me look."


async def test_a_turn_whose_round_cannot_be_stored_keeps_a_valid_history(tmp_path: Path) -> None:
    """Through the whole turn on SQL: the round's transaction fails at its tool call; what remains is the user's
    message and the partial reply marked incomplete — no tool call without its result, no counted usage."""
    storage = Storage.open(tmp_path / "home")
    try:
        failing = DiskFullOnToolCalls(storage.messages)
        storage.messages = failing  # type: ignore[assignment]
        adapters = FakeAdapterFactory()
        container = Container(storage, FakeApiKeyStorage({"anthropic": "sk-test"}), adapters)
        session = container.create_session(provider_id="anthropic", model_id="claude-sonnet-4-6")
        adapters.adapter("anthropic").scripts.extend(
            [tool_round(("t1", "read_tool_result", {"id": "x"}), text="Checking.", input_tokens=500), reply("ok")]
        )
        with pytest.raises(OSError):
            async for _ in container.send_message(session.id, "What is in the log?"):
                pass
        stored = storage.messages.snapshot(session.id)
        assert [(m.type, m.incomplete) for m in stored] == [
            (MessageType.USER, False), (MessageType.AI_RESPONSE, True),
        ]
        after = storage.sessions.get(session.id)
        assert after is not None and after.message_count == 2 and after.total_input_tokens == 0
    finally:
        storage.close()
