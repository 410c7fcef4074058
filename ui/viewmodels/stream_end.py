"""Knows when a turn's stream has really finished on the worker loop, not just when Stop was pressed (no Qt)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TypeVar

E = TypeVar("E")
SETTLE_SECONDS = 10.0  # a backend that takes longer than this to wind a stopped turn down is read as it stands


class StreamEnd:
    """Wraps a turn's event stream; `settled()` waits until the backend has finished with it.

    Stopping a turn cancels its task at once, but the backend still stores the partial reply while it winds down
    (closing the provider's stream first). Reading the conversation back before that would miss the reply, so the
    read-back awaits `settled()` on the same loop."""

    def __init__(self) -> None:
        self._done: asyncio.Future[None] | None = None

    async def track(self, events: AsyncIterator[E]) -> AsyncIterator[E]:
        """Yields the events; marks the end however the stream ends (finished, failed or cancelled)."""
        self._done = asyncio.get_running_loop().create_future()
        try:
            async for event in events:
                yield event
        finally:
            if not self._done.done():
                self._done.set_result(None)

    async def settled(self, timeout: float = SETTLE_SECONDS) -> None:
        """Returns once the stream ended, at once if it never started, or after `timeout` seconds at most."""
        done = self._done
        if done is None or done.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(done), timeout)
        except TimeoutError:
            pass
