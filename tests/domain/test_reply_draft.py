"""The streaming reply is stored as it grows (incomplete until its round ends), then completed in place."""

from __future__ import annotations

import asyncio

from domain.events import StreamDone, TextDelta, UsageReported
from domain.models import MessageType, Usage
from tests.fakes_turn import APART, Hang, TurnWorld, make_world, reply, tool_round


def replies(world: TurnWorld) -> list[tuple[str, bool, int]]:
    return [(m.content, m.incomplete, m.seq) for m in world.stored() if m.type is MessageType.AI_RESPONSE]


async def _until(world: TurnWorld, turn: asyncio.Task[list[object]], hang: Hang) -> None:
    await asyncio.wait_for(hang.reached.wait(), 2)
    assert not turn.done()


async def test_two_kilobytes_of_streamed_text_are_in_the_store_before_the_reply_ends() -> None:
    world = make_world()
    hang = Hang()
    world.adapter().scripts.append([TextDelta("a" * 1_500), TextDelta("b" * 1_000), hang, TextDelta(" end"),
                                    UsageReported(Usage(10, 20)), StreamDone("end_turn")])
    turn = asyncio.create_task(world.turn("write a lot"))
    await _until(world, turn, hang)
    assert replies(world) == [("a" * 1_500 + "b" * 1_000, True, 2)]  # stored mid-stream, marked incomplete
    session = world.sessions.get("s1")
    assert session is not None and session.message_count == 2
    hang.release.set()
    await turn
    assert replies(world) == [("a" * 1_500 + "b" * 1_000 + " end", False, 2)]  # completed in place, same seq
    stored = next(m for m in world.stored() if m.type is MessageType.AI_RESPONSE)
    assert stored.output_tokens == 20 and world.sessions.get("s1").message_count == 2  # type: ignore[union-attr]


async def test_after_a_second_even_a_short_stream_is_stored() -> None:
    world = make_world()
    hang = Hang()
    world.adapter().scripts.append([TextDelta("Hel"), APART, TextDelta("lo"), hang, *reply(" there")])
    world.clock.now = lambda: world.clock.advance(1.1)  # type: ignore[method-assign]  # each look: 1.1 s later
    turn = asyncio.create_task(world.turn("hi"))
    await _until(world, turn, hang)
    assert replies(world) == [("Hello", True, 2)]
    hang.release.set()
    await turn
    assert replies(world) == [("Hello there", False, 2)]


async def test_a_cancelled_turn_completes_its_draft_with_everything_that_arrived() -> None:
    world = make_world()
    hang = Hang()
    world.adapter().scripts.append([TextDelta("x" * 2_100), APART, TextDelta("yz"), hang])
    turn = asyncio.create_task(world.turn("go"))
    await _until(world, turn, hang)
    assert replies(world) == [("x" * 2_100, True, 2)]  # the last 2 characters are not written yet
    turn.cancel()
    try:
        await turn
    except asyncio.CancelledError:
        pass
    assert replies(world) == [("x" * 2_100 + "yz", True, 2)]  # one reply, everything that was shown


async def test_a_tool_round_completes_its_draft_and_stores_its_calls_after_it() -> None:
    world = make_world(handlers={"t": lambda args, ctx: "result"})
    world.adapter().scripts.extend([tool_round(("c1", "t", {}), text="L" * 2_500), reply("done")])
    await world.turn("use the tool")
    kinds = [(m.type, m.incomplete) for m in world.stored()]
    assert kinds == [
        (MessageType.USER, False), (MessageType.AI_RESPONSE, False), (MessageType.TOOL_CALL, False),
        (MessageType.TOOL_RESULT, False), (MessageType.AI_RESPONSE, False),
    ]
