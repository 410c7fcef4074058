"""Times the pure context-engine work of a turn (estimate, prune, build) by wrapping the injected parts."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from domain.context.builder import BuiltRequest
from domain.context.estimator import TokenEstimator
from domain.context.pruner import ToolResultPruner
from domain.models import Message, Session, SessionId, ToolDefinition
from domain.settings import ContextSettings

T = TypeVar("T")


class EngineTimer:
    """Seconds spent inside the wrapped engine calls; nested calls are counted once (outermost only)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._depth = 0

    def timed(self, call: Callable[[], T]) -> T:
        """Runs `call`, adding its duration when it is the outermost timed call."""
        if self._depth:
            return call()
        self._depth += 1
        started = time.perf_counter()
        try:
            return call()
        finally:
            self.seconds += time.perf_counter() - started
            self._depth -= 1


class TimedPruner(ToolResultPruner):
    """A ToolResultPruner whose prune and preview are timed."""

    def __init__(self, settings: ContextSettings, timer: EngineTimer) -> None:
        super().__init__(settings)
        self._timer = timer

    def prune(
        self, session_id: SessionId, messages: Sequence[Message], settings: ContextSettings | None = None
    ) -> list[Message]:
        """Timed prune."""
        return self._timer.timed(lambda: super(TimedPruner, self).prune(session_id, messages, settings))

    def preview(
        self, session_id: SessionId, messages: Sequence[Message], settings: ContextSettings | None = None
    ) -> list[Message]:
        """Timed preview."""
        return self._timer.timed(lambda: super(TimedPruner, self).preview(session_id, messages, settings))


def timed_estimator(base: type[TokenEstimator], timer: EngineTimer) -> type[TokenEstimator]:
    """A subclass of `base` whose request, message-list and single-message estimates are timed."""

    class Timed(base):  # type: ignore[valid-type,misc]
        def estimate_request(
            self,
            system_prompt: str | None,
            messages: Sequence[Message],
            tools: Sequence[ToolDefinition] = (),
            model_key: str | None = None,
        ) -> int:
            return timer.timed(lambda: super(Timed, self).estimate_request(system_prompt, messages, tools, model_key))

        def estimate_message(self, message: Message) -> int:
            return timer.timed(lambda: super(Timed, self).estimate_message(message))

    Timed.__name__ = f"Timed{base.__name__}"
    return Timed


def timed_builder(base: type[T], timer: EngineTimer) -> type[T]:
    """A subclass of a CompactAwareMessageBuilder class whose build is timed."""

    class Timed(base):  # type: ignore[valid-type,misc]
        def build(
            self, session: Session, messages: Sequence[Message], system_prompt: str | None,
            pinned: Sequence[Message] = (),
        ) -> BuiltRequest:
            return timer.timed(lambda: super(Timed, self).build(session, messages, system_prompt, pinned))

    Timed.__name__ = f"Timed{base.__name__}"
    return Timed
