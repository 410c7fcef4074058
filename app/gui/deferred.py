"""A ChatBackend that is built on the worker loop after the window shows, so start-up paints at once."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from ui.backend import ChatBackend

STREAMS = frozenset({"send", "retry", "edit", "regenerate", "import_file"})


class DeferredBackend:
    """Forwards every ChatBackend call to the real backend once set.

    The real backend is built by the first task on the worker's loop, and the loop runs tasks in order, so every call
    the window makes (all on that loop) finds it built; if building failed, every call raises that error.
    """

    def __init__(self) -> None:
        self._backend: ChatBackend | None = None
        self._error: BaseException | None = None

    def set(self, backend: ChatBackend) -> None:
        """The real backend is ready."""
        self._backend = backend

    def fail(self, error: BaseException) -> None:
        """Building failed; calls raise this error."""
        self._error = error

    def _require(self) -> ChatBackend:
        if self._backend is not None:
            return self._backend
        if self._error is not None:
            raise self._error
        raise RuntimeError("The backend was used before the worker built it.")

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_") or not hasattr(ChatBackend, name):
            raise AttributeError(name)
        if name in STREAMS:

            async def stream(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
                async for event in getattr(self._require(), name)(*args, **kwargs):
                    yield event

            return stream

        def call(*args: Any, **kwargs: Any) -> Coroutine[Any, Any, Any]:
            return getattr(self._require(), name)(*args, **kwargs)

        return call
