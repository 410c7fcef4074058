"""A provider stream held to a round's deadlines: the idle gap between events and the whole round, with a Waiting
event every few seconds of silence. Keep-alive pings never become events, so they never count as data."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass

from domain.errors import ProviderTimeout
from domain.events import StreamEvent, Waiting
from domain.settings import Deadlines

WAITING_TICK_S = 5.0  # how often a silence is reported
READ_AHEAD = 64  # events read from the provider's stream before the consumer takes them


@dataclass(frozen=True)
class _Failed:
    error: Exception


_Item = StreamEvent | _Failed | None  # None: the stream ended


async def within_deadlines(
    stream: AsyncIterator[StreamEvent], deadlines: Deadlines, *, tick: float | None = None
) -> AsyncGenerator[StreamEvent | Waiting, None]:
    """The stream's events, and Waiting(seconds) after each `tick` of silence; ProviderTimeout('idle') when nothing
    arrived for `deadlines.idle_s` (time the caller spends on an event does not count), ProviderTimeout('round')
    when the stream outlasts `deadlines.round_s`. Closing this closes the stream at once.

    The stream is read by one helper task from start to end (so an SDK's stream always runs in one task), at most
    READ_AHEAD events ahead (those that arrived together are handed over without a timer each). `tick` defaults
    to WAITING_TICK_S."""
    tick = WAITING_TICK_S if tick is None else tick
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[_Item] = asyncio.Queue(maxsize=READ_AHEAD)
    reader = loop.create_task(_read(stream, queue))
    started = quiet_since = loop.time()
    reported = 0.0  # seconds of this silence already reported
    try:
        while True:
            round_ends = started + deadlines.round_s
            wake = min(quiet_since + deadlines.idle_s, round_ends, quiet_since + reported + tick)
            try:
                if queue.empty() or loop.time() >= round_ends:
                    async with asyncio.timeout_at(wake):
                        item = await queue.get()
                else:  # already here: no timer to arm
                    item = queue.get_nowait()
            except TimeoutError:
                now = loop.time()
                if now >= round_ends:
                    raise ProviderTimeout("round", deadlines.round_s) from None
                if now >= quiet_since + deadlines.idle_s:
                    raise ProviderTimeout("idle", deadlines.idle_s) from None
                reported += tick
                yield Waiting(max(1, round(now - quiet_since)))
                continue
            if item is None:
                return
            if isinstance(item, _Failed):
                raise item.error
            if reported:
                reported = 0.0
                yield Waiting(0)
            yield item
            quiet_since = loop.time()
    finally:
        if not reader.done():
            reader.cancel()
            await asyncio.wait({reader})


async def _read(stream: AsyncIterator[StreamEvent], queue: asyncio.Queue[_Item]) -> None:
    """Puts each event, then the end (or the failure), into the queue; closes the stream however it ends."""
    try:
        async for event in stream:
            await queue.put(event)
        await queue.put(None)
    except Exception as exc:  # handed to the consumer, which raises it in its own task
        await queue.put(_Failed(exc))
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()
