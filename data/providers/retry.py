"""Retries transient provider errors with capped backoff, never after a stream has yielded anything."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from data.providers.errors import web_page_error
from domain.errors import ProviderError, RateLimited
from domain.events import ReplyProgress, StreamEvent

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait: exponential backoff; a provider's retry-after honoured up to max_delay."""

    max_retries: int = 2
    base_delay: float = 0.5
    max_delay: float = 20.0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep)

    def delay(self, attempt: int, error: ProviderError) -> float | None:
        """Seconds to wait before retry number attempt+1, or None when the error must not be retried."""
        limit = self.max_retries if error.retry_limit is None else min(self.max_retries, error.retry_limit)
        if not error.transient or attempt >= limit:
            return None
        if isinstance(error, RateLimited) and error.retry_after is not None:
            return error.retry_after if error.retry_after <= self.max_delay else None
        return min(self.max_delay, self.base_delay * (2**attempt))


async def retrying_stream(
    open_stream: Callable[[], AsyncGenerator[StreamEvent, None]], policy: RetryPolicy,
    map_error: Callable[[Exception], ProviderError] | None = None,
) -> AsyncIterator[StreamEvent]:
    """Yields the stream's events; a transient failure before the first event (other than ReplyProgress, which
    changes nothing downstream) starts it again. With `map_error`, an exception the stream raises that is not a
    ProviderError is mapped to one first (and retried like one): one generator, not one more around each attempt,
    because every event of a reply passes here.

    Closing this stream early (the user pressed stop) closes the attempt under way, and with it the connection.
    """
    attempt = 0
    while True:
        yielded = False
        inner = open_stream()
        step = inner.__anext__
        try:
            while True:
                try:
                    event = await step()
                except StopAsyncIteration:
                    return
                except ProviderError:
                    raise
                except Exception as exc:
                    if map_error is None:
                        raise
                    raise map_error(exc) from exc
                if not yielded:
                    yielded = not isinstance(event, ReplyProgress)  # progress alone changed nothing yet
                yield event
        except ProviderError as error:
            _raise_if_web_page(error)
            wait = None if yielded else policy.delay(attempt, error)
            if wait is None:
                raise
        finally:
            await inner.aclose()
        await policy.sleep(wait)
        attempt += 1


async def retrying_call(call: Callable[[], Awaitable[T]], policy: RetryPolicy) -> T:
    """Awaits the call, again after a transient failure, within the policy."""
    attempt = 0
    while True:
        try:
            return await call()
        except ProviderError as error:
            _raise_if_web_page(error)
            wait = policy.delay(attempt, error)
            if wait is None:
                raise
        await policy.sleep(wait)
        attempt += 1


def _raise_if_web_page(error: ProviderError) -> None:
    """A web page where an API answer belonged is no connection problem, and asking again will not change it."""
    page = web_page_error(error)
    if page is not None:
        raise page from error
