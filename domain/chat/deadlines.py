"""A provider stream held to a round's deadlines: the idle gap between events and the whole round, with a Waiting
event every few seconds of silence. Keep-alive pings never become events, so they never count as data."""

from __future__ import annotations

import asyncio
from collections import deque
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


class _Feed:
    """The events read ahead, from the reader task to the consumer: a deque, and a future for the side that waits
    (the consumer for an event, the reader for room). Lighter than an asyncio.Queue, since every event of a reply
    passes here."""

    __slots__ = ("getter", "items", "putter")

    def __init__(self) -> None:
        self.items: deque[_Item] = deque()
        self.getter: asyncio.Future[None] | None = None  # the consumer's, while it waits for an event
        self.putter: asyncio.Future[None] | None = None  # the reader's, while READ_AHEAD events wait

    def put(self, item: _Item) -> None:
        self.items.append(item)
        _wake(self.getter)

    def take(self) -> _Item:
        item = self.items.popleft()
        if self.putter is not None:
            _wake(self.putter)
            self.putter = None
        return item


def _wake(waiter: asyncio.Future[None] | None) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(None)


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
    feed = _Feed()
    items = feed.items
    reader = loop.create_task(_read(stream, feed, loop))
    started = quiet_since = loop.time()
    round_ends = started + deadlines.round_s
    reported = 0.0  # seconds of this silence already reported
    try:
        while True:
            if not items:  # nothing here yet: wait for it, within the deadlines
                wake = min(quiet_since + deadlines.idle_s, round_ends, quiet_since + reported + tick)
                feed.getter = waiter = loop.create_future()
                try:
                    async with asyncio.timeout_at(wake):
                        await waiter
                except TimeoutError:
                    now = loop.time()
                    if now >= round_ends:
                        raise ProviderTimeout("round", deadlines.round_s) from None
                    if now >= quiet_since + deadlines.idle_s:
                        raise ProviderTimeout("idle", deadlines.idle_s) from None
                    reported += tick
                    yield Waiting(max(1, round(now - quiet_since)))
                    continue
                finally:
                    feed.getter = None
            item = feed.take()  # already here (it arrived with others): no timer to arm
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


async def _read(stream: AsyncIterator[StreamEvent], feed: _Feed, loop: asyncio.AbstractEventLoop) -> None:
    """Feeds each event, then the end (or the failure); waits while READ_AHEAD events wait for the consumer; closes
    the stream however it ends."""
    try:
        async for event in stream:
            feed.put(event)
            if len(feed.items) >= READ_AHEAD:
                feed.putter = loop.create_future()
                await feed.putter
        feed.put(None)
    except Exception as exc:  # handed to the consumer, which raises it in its own task
        feed.put(_Failed(exc))
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()
