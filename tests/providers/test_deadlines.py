"""Deadlines through the real SDK adapters against the fake servers: a server that never sends headers is given up
after the headers deadline and one retry; keep-alive pings never count as data; an endless reply meets the round
deadline; the SDK's own read timeout never cuts a stream that the deadlines allow."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator

import pytest

from data.providers.factory import SdkAdapterFactory
from data.providers.retry import RetryPolicy, retrying_stream
from domain.chat.deadlines import within_deadlines
from domain.errors import NetworkError, ProviderTimeout
from domain.events import ReplyProgress, StreamDone, StreamEvent, TextDelta, Waiting
from domain.models import Provider, ProviderType
from domain.provider_ports import ModelApiAdapter
from domain.settings import Deadlines
from tests.fakeservers import ErrorReply, FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer, ScriptedBrain
from tests.providers.helpers import KEY, History, RecordingSleep

KINDS = {
    ProviderType.ANTHROPIC: FakeAnthropicServer,
    ProviderType.OPENAI: FakeOpenAIServer,
    ProviderType.GEMINI: FakeGeminiServer,
}
LIMIT_S = 10.0  # a test that would hang on the old code fails after this long instead


def adapter(kind: ProviderType, base_url: str, *, sleep: RecordingSleep, timeout: float = 10.0) -> ModelApiAdapter:
    """An adapter made by the real factory, with the app's retry policy (two retries) and an instant backoff."""
    factory = SdkAdapterFactory(timeout=timeout, env={}, retry=RetryPolicy(max_retries=2, sleep=sleep))
    return factory.create(Provider(id=kind.value, name=kind.value.title(), type=kind, base_url=base_url), KEY)


def reply(adapter: ModelApiAdapter, deadlines: Deadlines) -> AsyncIterator[StreamEvent]:
    return adapter.send_message_stream(model_id="test-model", system_prompt=None,
                                       messages=History().user("hi").messages, tools=(), max_output_tokens=256,
                                       deadlines=deadlines)


async def read(events: AsyncIterator[StreamEvent | Waiting], seen: list[StreamEvent | Waiting]) -> None:
    async for event in events:
        seen.append(event)


@pytest.mark.parametrize("kind", list(KINDS))
async def test_no_headers_is_given_up_after_the_headers_deadline_and_one_retry(kind: ProviderType) -> None:
    sleep = RecordingSleep()
    with KINDS[kind](ScriptedBrain(default=ErrorReply("no_headers"))) as server:
        started = time.monotonic()
        with pytest.raises(ProviderTimeout) as caught:
            await asyncio.wait_for(read(reply(adapter(kind, server.base_url, sleep=sleep), Deadlines(0.4, 5, 9)), []),
                                   LIMIT_S)
        elapsed = time.monotonic() - started
    assert caught.value.deadline == "headers" and caught.value.transient
    assert "no response headers within 0.4 s (headers timeout)" in caught.value.message
    assert len(server.log) == 2 and len(sleep.delays) == 1  # retried once, although the policy allows two
    assert 0.8 <= elapsed < 6.0  # two deadlines, not the SDK's 120 s read timeout three times


@pytest.mark.parametrize("kind", list(KINDS))
async def test_a_retry_after_missing_headers_gets_the_reply(kind: ProviderType) -> None:
    sleep = RecordingSleep()
    with KINDS[kind](ScriptedBrain([ErrorReply("no_headers"), "Hello there"])) as server:
        seen: list[StreamEvent | Waiting] = []
        # 2 s: the retry's headers must arrive within it on a loaded machine too (0.4 s was missed once at load 3.5)
        await asyncio.wait_for(read(reply(adapter(kind, server.base_url, sleep=sleep), Deadlines(2, 5, 9)), seen),
                               LIMIT_S)
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "Hello there"
    assert len(server.log) == 2


@pytest.mark.parametrize("kind", list(KINDS))
async def test_keep_alive_pings_do_not_count_as_data(kind: ProviderType) -> None:
    seen: list[StreamEvent | Waiting] = []
    with KINDS[kind](ScriptedBrain([ErrorReply("pings_only", interval=0.05)])) as server:
        events = reply(adapter(kind, server.base_url, sleep=RecordingSleep()), Deadlines(5, 0.6, 9))
        started = time.monotonic()
        with pytest.raises(ProviderTimeout) as caught:
            await asyncio.wait_for(read(within_deadlines(events, Deadlines(5, 0.6, 9), tick=0.25), seen), LIMIT_S)
        elapsed = time.monotonic() - started
    assert caught.value.deadline == "idle" and not caught.value.transient
    assert caught.value.message.startswith("No data from the provider for 0.6 s (idle timeout).")
    assert [e for e in seen if isinstance(e, TextDelta)] == [TextDelta("partial ")]
    text_at = seen.index(TextDelta("partial "))
    before = [e.seconds for e in seen[:text_at] if isinstance(e, Waiting)]
    assert not before or before[-1] == 0  # a slow start (a loaded machine) may be reported; the text ends it
    after = [e.seconds for e in seen[text_at + 1:] if isinstance(e, Waiting)]
    assert len(after) >= 1 and all(w > 0 for w in after)  # every 0.25 s of the silence: no ping ends it
    assert len(server.log) == 1 and 0.5 <= elapsed < 6.0  # an idle timeout is not retried


@pytest.mark.parametrize("kind", list(KINDS))
async def test_a_reply_that_never_ends_meets_the_round_deadline(kind: ProviderType) -> None:
    seen: list[StreamEvent | Waiting] = []
    with KINDS[kind](ScriptedBrain([ErrorReply("endless", interval=0.2, chunks_before=())])) as server:
        deadlines = Deadlines(5, 1.0, 1.2)  # chunks 0.2 s apart: only a 1 s stall (not load) would be idle
        events = reply(adapter(kind, server.base_url, sleep=RecordingSleep()), deadlines)
        with pytest.raises(ProviderTimeout) as caught:
            await asyncio.wait_for(read(within_deadlines(events, deadlines), seen), LIMIT_S)
    assert caught.value.deadline == "round"
    assert caught.value.message.startswith("The reply took longer than 1.2 s (round timeout).")
    assert len([e for e in seen if isinstance(e, TextDelta)]) >= 3  # data kept coming: the idle deadline never fired


@pytest.mark.parametrize("kind", list(KINDS))
async def test_the_sdk_read_timeout_never_cuts_a_stream_the_deadlines_allow(kind: ProviderType) -> None:
    # chunks 0.5 s apart, the client's own timeout 0.3 s: with deadlines the request's timeout is raised above them
    with KINDS[kind](ScriptedBrain([ErrorReply("endless", interval=0.5, chunks_before=())])) as server:
        events = reply(adapter(kind, server.base_url, sleep=RecordingSleep(), timeout=0.3), Deadlines(5, 2, 9))
        texts: list[str] = []

        async def three() -> None:
            async for event in events:
                if isinstance(event, TextDelta):
                    texts.append(event.text)
                    if len(texts) == 3:
                        break
            await events.aclose()  # type: ignore[attr-defined]

        await asyncio.wait_for(three(), LIMIT_S)
    assert texts == ["tick 1 ", "tick 2 ", "tick 3 "]


@pytest.mark.parametrize("kind", list(KINDS))
async def test_the_headers_deadline_ends_when_the_headers_arrive(kind: ProviderType) -> None:
    # a model that thinks silently: headers at once, then nothing but pings for longer than the headers deadline
    # (google-genai sends its request only on the first read, so only the response hook can tell headers arrived)
    with KINDS[kind](ScriptedBrain([ErrorReply("pings_only", interval=0.05, chunks_before=())])) as server:
        deadlines = Deadlines(0.5, 1.2, 9)
        events = reply(adapter(kind, server.base_url, sleep=RecordingSleep()), deadlines)
        with pytest.raises(ProviderTimeout) as caught:
            await asyncio.wait_for(read(within_deadlines(events, deadlines), []), LIMIT_S)
    assert caught.value.deadline == "idle" and len(server.log) == 1


async def test_a_failure_while_only_tool_arguments_arrived_is_still_retried() -> None:
    # ReplyProgress keeps the idle deadline at bay but shows nothing, so the attempt may still start again
    attempts: list[int] = []

    async def attempt() -> AsyncGenerator[StreamEvent, None]:
        attempts.append(len(attempts))
        if len(attempts) == 1:
            yield ReplyProgress()
            raise NetworkError("the response stream ended early")
        yield TextDelta("done")
        yield StreamDone("end_turn")

    sleep = RecordingSleep()
    events = [e async for e in retrying_stream(attempt, RetryPolicy(max_retries=2, sleep=sleep))]
    assert attempts == [0, 1] and events[-2:] == [TextDelta("done"), StreamDone("end_turn")]
