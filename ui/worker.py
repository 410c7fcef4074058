"""Runs backend coroutines on an asyncio loop in a worker thread and delivers results on the GUI thread."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Qt, Signal, Slot

from ui.signals import emit

T = TypeVar("T")
E = TypeVar("E")
log = logging.getLogger(__name__)


class _Relay(QObject):
    """Lives on the GUI thread; runs the callables the worker thread posts to it."""

    posted = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.posted.connect(self._run, Qt.ConnectionType.QueuedConnection)

    @Slot(object)
    def _run(self, fn: Callable[[], None]) -> None:
        fn()


class StreamHandle:
    """A running stream; cancel() stops it (the backend keeps whatever was produced)."""

    def __init__(self) -> None:
        self._future: Future[None] | None = None
        self.cancelled = False

    def cancel(self) -> None:
        """Requests cancellation of the stream's task."""
        self.cancelled = True
        if self._future is not None:
            self._future.cancel()


class AsyncWorker:
    """One asyncio loop in a daemon thread; every backend call runs there, never on the GUI thread."""

    def __init__(self) -> None:
        self._relay = _Relay()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="palimpsest-worker", daemon=True)
        self._thread.start()
        self._closed = False
        self._pending: set[Future[Any]] = set()
        self._open_calls = 0  # calls whose answer has not run on the GUI thread yet (GUI thread only)

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The worker's event loop (for composition code that must build things on it)."""
        return self._loop

    @property
    def calls_in_flight(self) -> int:
        """Calls (streams aside) whose answer has not been handled on the GUI thread yet: 0 when the window has
        everything it asked for (tests wait on it rather than on a fixed delay)."""
        return self._open_calls

    def _closed_call(self, fn: Callable[[], None] | None = None) -> Callable[[], None]:
        def deliver() -> None:
            try:
                if fn is not None:
                    fn()
            finally:
                self._open_calls -= 1

        return deliver

    def _post(self, fn: Callable[[], None]) -> None:
        if not self._closed:
            emit(self._relay.posted, fn)

    def call(
        self,
        make: Callable[[], Awaitable[T]],
        on_ok: Callable[[T], None],
        on_error: Callable[[Exception], None],
    ) -> Future[T]:
        """Runs make() on the worker loop; on_ok or on_error then runs on the GUI thread."""

        async def run() -> T:
            return await make()

        if self._closed:  # the window is closing: nothing runs, nothing is delivered
            cancelled: Future[T] = Future()
            cancelled.cancel()
            return cancelled
        future = asyncio.run_coroutine_threadsafe(run(), self._loop)
        self._pending.add(future)
        self._open_calls += 1

        def done(f: Future[T]) -> None:
            self._pending.discard(f)
            if f.cancelled():
                self._post(self._closed_call())
                return
            error = f.exception()
            if error is None:
                result = f.result()
                self._post(self._closed_call(lambda: on_ok(result)))
            elif isinstance(error, Exception):
                _log_if_bug(error)
                self._post(self._closed_call(lambda: on_error(error)))
            else:
                self._post(self._closed_call())

        future.add_done_callback(done)
        return future

    def stream(
        self,
        make: Callable[[], AsyncIterator[E]],
        on_event: Callable[[E], None],
        on_done: Callable[[bool], None],
        on_error: Callable[[Exception], None],
        delay: float = 0.0,
    ) -> StreamHandle:
        """Iterates make() on the worker loop (after `delay` seconds); each item, then on_done(cancelled) or on_error,
        on the GUI thread."""
        handle = StreamHandle()

        async def run() -> None:
            if delay > 0:
                await asyncio.sleep(delay)
            iterator = make()
            try:
                async for item in iterator:
                    self._post(lambda item=item: on_event(item))  # type: ignore[misc]
            finally:
                closer = getattr(iterator, "aclose", None)
                if closer is not None:
                    await asyncio.shield(closer())

        if self._closed:
            handle.cancelled = True
            return handle
        future = asyncio.run_coroutine_threadsafe(run(), self._loop)
        handle._future = future
        self._pending.add(future)

        def done(f: Future[None]) -> None:
            self._pending.discard(f)
            if f.cancelled():
                self._post(lambda: on_done(True))
                return
            error = f.exception()
            if error is None:
                self._post(lambda: on_done(handle.cancelled))
            elif isinstance(error, Exception):
                _log_if_bug(error)
                self._post(lambda: on_error(error))

        future.add_done_callback(done)
        return handle

    def run_sync(self, make: Callable[[], Awaitable[T]], timeout: float = 30.0) -> T:
        """Blocks until make() finished on the worker loop (for start-up and shutdown code only)."""

        async def run() -> T:
            return await make()

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result(timeout)

    def shutdown(self, timeout: float = 5.0) -> None:
        """Cancels what is running, stops the loop and joins the thread; no callback runs afterwards."""
        if self._closed:
            return
        self._closed = True
        for future in list(self._pending):
            future.cancel()

        async def drain() -> None:
            tasks = [t for t in asyncio.all_tasks(self._loop) if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            asyncio.run_coroutine_threadsafe(drain(), self._loop).result(timeout)
        except Exception:  # the loop may already be wedged; we are exiting anyway
            log.warning("worker tasks did not finish within %.1f s", timeout)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self._loop.close()


def _log_if_bug(error: BaseException) -> None:
    from domain.errors import PalimpsestError

    if not isinstance(error, PalimpsestError):
        log.error("unexpected error in a backend call", exc_info=error)


def describe_error(error: Exception) -> str:
    """A sentence for the user: known errors speak for themselves, bugs are named as such."""
    from domain.errors import PalimpsestError

    if isinstance(error, PalimpsestError):
        return str(error)
    return f"Something went wrong inside Palimpsest ({type(error).__name__}: {error}). Details are in the log."
