"""A provider stream held to a round's deadlines: the idle gap between events and the whole round, with a Waiting
event every few seconds of silence. Keep-alive pings never become events, so they never count as data."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass

from domain.errors import ProviderTimeout
from domain.events import StreamEvent, TextDelta, Waiting
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


def _joined(first: TextDelta, feed: _Feed) -> TextDelta:
    """`first` and the text deltas waiting right after it, as one delta: every event costs its consumers (the turn,
    the screen) the same whatever its length, and a provider's burst can hold dozens."""
    parts = [first.text]
    items = feed.items
    while items and type(items[0]) is TextDelta:
        parts.append(feed.take().text)  # type: ignore[union-attr]
    return TextDelta("".join(parts))


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
    READ_AHEAD events ahead (those that arrived together are handed over without a timer each, consecutive text
    deltas among them as one). `tick` defaults to WAITING_TICK_S."""
    tick = WAITING_TICK_S if tick is None else tick
    loop = asyncio.get_running_loop()
    feed = _Feed()
    items = feed.items
    reader = loop.create_task(_read(stream, feed, loop))
    started = quiet_since = loop.time()
    round_ends = started + deadlines.round_s
    reported = 0.0  # seconds of this silence already reported
    alarm = _Alarm(loop, feed)
    try:
        while True:
            if not items:  # nothing here yet: wait for it, within the deadlines
                wake = min(quiet_since + deadlines.idle_s, round_ends, quiet_since + reported + tick)
                alarm.by(wake)
                feed.getter = waiter = loop.create_future()
                try:
                    await waiter
                finally:
                    feed.getter = None
                if not items:  # woken by the alarm: a deadline or a tick, if its time has come
                    now = loop.time()
                    if now < wake:
                        continue  # an alarm set for an earlier wake (the silence began later): wait on
                    if now >= round_ends:
                        raise ProviderTimeout("round", deadlines.round_s) from None
                    if now >= quiet_since + deadlines.idle_s:
                        raise ProviderTimeout("idle", deadlines.idle_s) from None
                    reported += tick
                    yield Waiting(max(1, round(now - quiet_since)))
                    continue
            item = feed.take()  # already here (it arrived with others, or woke this wait)
            if item is None:
                return
            if items and type(item) is TextDelta and type(items[0]) is TextDelta:  # text that arrived together
                item = _joined(item, feed)
            if isinstance(item, _Failed):
                raise item.error
            if reported:
                reported = 0.0
                yield Waiting(0)
            yield item
            quiet_since = loop.time()
    finally:
        alarm.off()
        if not reader.done():
            reader.cancel()
            await asyncio.wait({reader})


class _Alarm:
    """One timer for the consumer's waits, moved only when a wait must end sooner than it rings: arming a timer for
    every event (asyncio.timeout) cost more than the event itself. Ringing early only wakes the consumer, which
    checks the time and waits on."""

    __slots__ = ("_feed", "_handle", "_loop", "_when")

    def __init__(self, loop: asyncio.AbstractEventLoop, feed: _Feed) -> None:
        self._loop, self._feed = loop, feed
        self._handle: asyncio.TimerHandle | None = None
        self._when = 0.0

    def by(self, when: float) -> None:
        """Makes sure the alarm rings at `when` at the latest."""
        if self._handle is None or self._when > when:
            if self._handle is not None:
                self._handle.cancel()
            self._when = when
            self._handle = self._loop.call_at(when, self._ring)

    def off(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _ring(self) -> None:
        self._handle = None
        _wake(self._feed.getter)


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
