"""Records every aiohttp ClientSession made while active (a hand-written wrapper of __init__) to find unclosed ones."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from types import TracebackType
from typing import Any, TypeVar

import pytest

T = TypeVar("T")


class SessionTracker:
    """While entered, every aiohttp.ClientSession built in this process (the anthropic and openai SDKs' aiohttp
    transport makes one per client) is kept in `sessions`; `unclosed()` names those nobody closed. aiohttp is imported
    on entering only (some tests check that a command never imports it)."""

    def __init__(self) -> None:
        self.sessions: list[Any] = []
        self._original: Any = None

    def __enter__(self) -> SessionTracker:
        import aiohttp

        original = self._original = aiohttp.ClientSession.__init__
        sessions = self.sessions

        def recording_init(session: Any, *args: Any, **kwargs: Any) -> None:
            original(session, *args, **kwargs)
            sessions.append(session)

        aiohttp.ClientSession.__init__ = recording_init  # type: ignore[method-assign, assignment]
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        import aiohttp

        aiohttp.ClientSession.__init__ = self._original  # type: ignore[method-assign]

    def unclosed(self) -> list[Any]:
        """The recorded sessions that are still open."""
        return [session for session in self.sessions if not session.closed]


@pytest.fixture(autouse=True)
async def sdk_clients_closed_on_their_loop() -> AsyncIterator[None]:
    """For a conftest of tests that build SDK adapters and do not close them: every aiohttp session a test left open
    is closed on the test's own event loop as it ends, so it is never collected (printing "Unclosed client session"
    to stderr) during a later test of the same process, where an in-process CLI run failed on it under pytest-xdist."""
    with SessionTracker() as tracker:
        yield
    loop = asyncio.get_running_loop()
    for session in tracker.unclosed():
        if session._loop is loop:  # a session of a loop that already ended cannot be closed from here
            await session.close()


async def closing_adapters(container: Any, work: Awaitable[T]) -> T:
    """Runs `work`, then closes the container's SDK clients on the same loop, as app.main does for a command."""
    try:
        return await work
    finally:
        await container.aclose_adapters()
