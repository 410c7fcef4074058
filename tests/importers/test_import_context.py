"""An imported long conversation is context-aware at once: measured like any session, compacted on its first send."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from domain.events import CompactCompleted, ResponseComplete
from domain.importers.model import ImportedConversation
from domain.models import Message, MessageType
from domain.usecases.import_conversations import ImportConversationsUseCase
from tests.fakes_turn import make_world, reply

T = datetime(2025, 1, 1, tzinfo=UTC)
FILLER = "lorem ipsum " * 170  # about 500 tokens a message


def long_conversation(turns: int) -> ImportedConversation:
    messages, parent = [], None
    for i in range(turns):
        for kind, text in ((MessageType.USER, f"Question {i}: {FILLER}"), (MessageType.AI_RESPONSE, f"A{i} {FILLER}")):
            mid = f"imp/{kind.value}{i}"
            messages.append(Message(mid, "imp", kind, text, T + timedelta(seconds=len(messages)), parent_id=parent))
            parent = mid
    return ImportedConversation("imp", "Imported", T, T, tuple(messages), parent)


async def test_the_first_send_of_an_imported_conversation_over_the_window_compacts_before_it_is_sent() -> None:
    world = make_world(window=16_000)
    ImportConversationsUseCase(world.store, world.sessions, world.messages, world.agents)([long_conversation(20)])
    status = world.status("imp")
    assert status.used > 16_000  # the gauge shows it over the window at once
    world.summarizer.default = "SUMMARY OF THE IMPORT"
    world.adapter().scripts.append(reply("Carrying on."))
    events = await world.turn("Where were we?", session_id="imp")
    assert any(isinstance(e, CompactCompleted) and e.did_compact for e in events)
    assert any(isinstance(e, ResponseComplete) for e in events)
    request = world.adapter().requests[0]
    assert "SUMMARY OF THE IMPORT" in (request.system_prompt or "") and len(request.messages) < 41
    assert world.messages.count("imp") == 42  # every imported message kept, plus the new turn
