"""The silent memory-flush turn: when it fires, what it stores (memories) and what it never stores (messages)."""

from __future__ import annotations

from dataclasses import replace

from domain.context.builder import BuiltRequest
from domain.context.flush import FLUSH_PROMPT
from domain.errors import NetworkError
from domain.events import MemoryFlushed, TextDelta
from domain.models import Message, MessageType
from tests.fakes_turn import TurnWorld, make_world, reply, tool_round

SUMMARY = "Goal: chat. Critical Context: the cat is Miso."


def seed_history(world: TurnWorld, turns: int, chars: int = 8_000) -> None:
    filler = "lorem ipsum " * (chars // 12)
    for i in range(turns):
        world.messages.add(Message(f"u{i}", "s1", MessageType.USER, f"Question {i}: {filler}"))
        world.messages.add(Message(f"a{i}", "s1", MessageType.AI_RESPONSE, f"Answer {i}: {filler}"))


def near_threshold_world() -> TurnWorld:
    """12,000-token window with about 8,000 tokens used: past the flush point (6,200), below compaction (10,200)."""
    world = make_world(window=12_000)
    seed_history(world, 2)
    return world


async def test_flush_runs_a_silent_turn_whose_memories_persist_and_whose_messages_are_not_stored() -> None:
    world = near_threshold_world()
    before = len(world.stored())
    world.adapter().scripts.extend([
        reply("Here is my answer."),
        tool_round(("f1", "save_memory", {"content": "The user's cat is called Miso."}),
                   ("f2", "save_memory", {"content": "The user prefers metric units."}), text="Saving."),
    ])
    events = await world.turn("My cat Miso likes metric units")
    assert [e for e in events if isinstance(e, MemoryFlushed)] == [MemoryFlushed(2)]
    assert sorted(m.content for m in world.memories.memories.values()) == [
        "The user prefers metric units.", "The user's cat is called Miso.",
    ]
    assert all(m.agent_id == "default" and m.source_session_id == "s1" for m in world.memories.memories.values())
    assert len(world.stored()) == before + 2  # the user's message and the answer, nothing of the flush
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Here is my answer."]
    flush_request = world.adapter().requests[1]
    assert flush_request.messages[-1].content == FLUSH_PROMPT
    assert flush_request.messages[-1].type is MessageType.USER
    assert flush_request.messages[-2].content == "Here is my answer."
    chat_request = world.adapter().requests[0]
    assert "save_memory" in [t.name for t in flush_request.tools]
    assert flush_request.tools == chat_request.tools  # the same prefix as the chat: the prompt cache is reused
    assert flush_request.system_prompt == chat_request.system_prompt
    assert world.sessions.get("s1").flushed_in_compaction_cycle


async def test_flush_fires_before_the_compaction_check() -> None:
    world = make_world(window=12_000)
    world.summarizer.default = SUMMARY
    seed_history(world, 2, chars=10_400)  # about 10,400 tokens: past the flush point and the threshold (10,200)
    world.adapter().scripts.extend([reply("ok"), reply("NO_REPLY")])
    names = [type(e).__name__ for e in await world.turn("hello")]
    assert names.index("MemoryFlushed") < names.index("CompactStarted")


async def test_flush_fires_once_per_compaction_cycle() -> None:
    world = near_threshold_world()
    adapter = world.adapter()
    adapter.scripts.extend([reply("one"), reply("NO_REPLY"), reply("two")])
    await world.turn("first")
    second = await world.turn("second")
    assert not any(isinstance(e, MemoryFlushed) for e in second)
    assert len(adapter.requests) == 3


async def test_a_compaction_starts_a_new_cycle_in_which_the_flush_may_fire_again() -> None:
    world = near_threshold_world()
    adapter = world.adapter()
    adapter.scripts.extend([reply("one"), reply("NO_REPLY")])
    await world.turn("first")
    session = world.sessions.get("s1")
    world.sessions.apply_compaction("s1", summary=SUMMARY, boundary=1, record=_record())  # keeps all messages
    assert not world.sessions.get("s1").flushed_in_compaction_cycle and session.flushed_in_compaction_cycle
    adapter.scripts.extend([reply("two"), reply("NO_REPLY")])
    events = await world.turn("second")
    assert [e for e in events if isinstance(e, MemoryFlushed)] == [MemoryFlushed(0)]


async def test_no_flush_below_the_flush_point() -> None:
    world = make_world(window=12_000)
    world.adapter().scripts.append(reply("short"))
    events = await world.turn("a short chat")
    assert not any(isinstance(e, MemoryFlushed) for e in events)
    assert len(world.adapter().requests) == 1


async def test_no_flush_when_disabled_in_the_settings() -> None:
    from domain.settings import ContextSettings

    world = make_world(window=12_000, settings=ContextSettings(memory_flush_enabled=False))
    seed_history(world, 2)
    world.adapter().scripts.append(reply("ok"))
    events = await world.turn("hello")
    assert not any(isinstance(e, MemoryFlushed) for e in events)
    assert len(world.adapter().requests) == 1  # the chat's request only


def _flush(world: TurnWorld):  # type: ignore[no-untyped-def]
    from domain.services.adapters import ProviderAdapters
    from domain.usecases.memory_flush import MemoryFlushUseCase

    adapters = ProviderAdapters(world.providers, world.keys, world.adapters)
    return MemoryFlushUseCase(world.store, world.sessions, adapters, world.tools, world.clock)


REQUEST = BuiltRequest("You are helpful.", [Message("u1", "s1", MessageType.USER, "hello")])


async def test_flush_use_case_does_nothing_when_already_flushed_this_cycle() -> None:
    world = make_world()
    world.sessions.update(replace(world.sessions.get("s1"), flushed_in_compaction_cycle=True))
    saved = await _flush(world)(world.context("s1"), REQUEST)
    assert saved == 0 and world.adapter().requests == []


async def test_a_failing_flush_saves_nothing_but_still_closes_the_cycle() -> None:
    world = make_world()
    world.adapter().scripts.append(NetworkError("down"))
    saved = await _flush(world)(world.context("s1"), REQUEST)
    assert saved == 0 and world.memories.memories == {}
    assert world.sessions.get("s1").flushed_in_compaction_cycle


async def test_only_successful_save_memory_calls_are_counted_and_other_tools_are_ignored() -> None:
    world = make_world(handlers={"http_request": lambda a, c: "should not run"})
    world.adapter().scripts.append(tool_round(
        ("f1", "save_memory", {"content": "Keep this."}),
        ("f2", "save_memory", {"content": "   "}),
        ("f3", "http_request", {"url": "https://x"}),
    ))
    ctx = world.context("s1")
    assert {t.name for t in ctx.tools} == {"http_request", "save_memory"}  # the chat's own tools are offered
    saved = await _flush(world)(ctx, REQUEST)
    assert saved == 1
    assert [m.content for m in world.memories.memories.values()] == ["Keep this."]
    assert [name for name, _, _ in world.tools.calls] == ["save_memory", "save_memory"]


async def test_memories_saved_midway_are_kept_when_the_flush_stream_fails() -> None:
    from domain.events import ToolCallRequested

    world = make_world()
    world.adapter().scripts.append([ToolCallRequested("f1", "save_memory", {"content": "Early fact."}),
                                    NetworkError("reset")])
    saved = await _flush(world)(world.context("s1"), REQUEST)
    assert saved == 1 and [m.content for m in world.memories.memories.values()] == ["Early fact."]


def _record():  # type: ignore[no-untyped-def]
    from datetime import UTC, datetime

    from domain.models import CompactionRecord

    return CompactionRecord("s1", datetime(2026, 1, 1, tzinfo=UTC), 1, 100, 50, 10, "manual")
