"""A long tool's progress reports come out of the turn as ToolProgress events while it runs; stopping the turn while
a tool runs cancels the tool."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from domain.events import ToolCallStarted, ToolProgress, ToolResultStored
from domain.provider_ports import ToolContext
from tests.fakes_turn import make_world, reply, tool_round


async def test_progress_reports_come_between_the_calls_start_and_its_result() -> None:
    async def copy(arguments: Mapping[str, Any], context: ToolContext) -> str:
        assert context.progress is not None
        for done in (1, 2):
            context.progress(done, 2, f"file {done} of 2")
            await asyncio.sleep(0)
        return "copied"

    world = make_world(handlers={"copy": copy})
    world.adapter().scripts.extend([tool_round(("c1", "copy", {})), reply("Done.")])

    events = [e async for e in world.send("s1", "copy them")]

    shown = [e for e in events if isinstance(e, ToolCallStarted | ToolProgress | ToolResultStored)]
    assert [type(e).__name__ for e in shown] == ["ToolCallStarted", "ToolProgress", "ToolProgress",
                                                 "ToolResultStored"]
    assert [e.text for e in shown if isinstance(e, ToolProgress)] == ["file 1 of 2 (50%)", "file 2 of 2 (100%)"]
    assert ToolProgress("c1", "copy", 7, None, None).text == "7"


async def test_stopping_the_turn_while_a_tool_runs_cancels_the_tool() -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def wait_forever(arguments: Mapping[str, Any], context: ToolContext) -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    world = make_world(handlers={"wait": wait_forever})
    world.adapter().scripts.append(tool_round(("c1", "wait", {})))

    async def consume() -> None:
        async for _ in world.send("s1", "wait"):
            pass

    task = asyncio.create_task(consume())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cancelled.is_set()
