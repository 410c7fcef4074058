"""A reply kept incomplete is stored with why it ended (issue 26): cut off by a failure, or stopped by the user."""

from __future__ import annotations

import asyncio

import pytest

from domain.errors import NetworkError
from domain.events import TextDelta
from domain.models import ReplyEnd
from tests.fakes_turn import Hang, make_world


async def test_a_reply_cut_by_a_failure_is_stored_as_cut() -> None:
    world = make_world()
    world.adapter().scripts.append([TextDelta("The first half"), NetworkError("connection reset")])
    await world.turn("Explain")
    last = world.stored()[-1]
    assert last.content == "The first half" and last.incomplete and last.end_reason is ReplyEnd.CUT


async def test_a_reply_stopped_by_the_user_is_stored_as_stopped() -> None:
    world = make_world()
    hang = Hang()
    world.adapter().scripts.append([TextDelta("Once upon a time"), hang])

    async def consume() -> None:
        async for _event in world.send("s1", "Tell me a story"):
            pass

    task = asyncio.create_task(consume())
    await hang.reached.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    last = world.stored()[-1]
    assert last.incomplete and last.end_reason is ReplyEnd.STOPPED


async def test_closing_the_turn_like_ctrl_c_is_stopped_too() -> None:
    world = make_world()
    world.adapter().scripts.append([TextDelta("Half an answer"), Hang()])
    turn = world.send("s1", "Question")
    await turn.__anext__()
    await turn.aclose()
    assert world.stored()[-1].end_reason is ReplyEnd.STOPPED
