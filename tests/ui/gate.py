"""A latch a fake backend waits on, so a test decides when a transient state ends."""

from __future__ import annotations

import asyncio
import threading


class Gate:
    """A script item that holds the reply where it stands until the test opens it: a test can look at a streaming
    turn for as long as it needs, however slowly a loaded machine runs (a pause could end before the look)."""

    def __init__(self) -> None:
        self._open = threading.Event()

    def open(self) -> None:
        self._open.set()

    async def passed(self) -> None:
        while not self._open.is_set():
            await asyncio.sleep(0.005)
