"""A failed connection names its cause and the URL tried, through the real SDKs: a refused port (reported at once,
not retried), an unresolvable host, a stream the server cut; never a key or a password of the URL."""

from __future__ import annotations

import socket
import time

import pytest

from data.providers.errors import public_url
from data.providers.factory import SdkAdapterFactory
from data.providers.retry import RetryPolicy
from domain.errors import NetworkError
from domain.models import Provider, ProviderType
from domain.settings import Deadlines
from tests.fakeservers import ErrorReply, FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer, ScriptedBrain
from tests.providers.helpers import KEY, History, RecordingSleep, adapter_for, collect, stream

KINDS = [ProviderType.ANTHROPIC, ProviderType.OPENAI, ProviderType.GEMINI]
SERVERS = {ProviderType.ANTHROPIC: FakeAnthropicServer, ProviderType.OPENAI: FakeOpenAIServer,
           ProviderType.GEMINI: FakeGeminiServer}


def closed_port() -> int:
    """A port nothing listens on: bound, then closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def failure(kind: ProviderType, base_url: str, sleep: RecordingSleep) -> NetworkError:
    adapter = adapter_for(kind, base_url, retries=2, sleep=sleep)
    try:
        with pytest.raises(NetworkError) as caught:
            await collect(stream(adapter, History().user("hi")))
    finally:
        await adapter.aclose()
    return caught.value


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.value)
async def test_a_refused_connection_is_named_with_its_url_and_not_retried(kind: ProviderType) -> None:
    port, sleep = closed_port(), RecordingSleep()
    started = time.monotonic()
    error = await failure(kind, f"http://127.0.0.1:{port}", sleep)
    assert time.monotonic() - started < 5  # one attempt, no read timeout waited out
    assert error.reason == "refused" and f"127.0.0.1:{port}" in (error.url or "")
    assert "refused" in error.message and f"http://127.0.0.1:{port}" in error.message
    assert "timed out" not in error.message
    assert sleep.delays == []  # asking again at once would be refused again: the user hears at once


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.value)
async def test_an_unresolvable_host_is_named_as_such(kind: ProviderType) -> None:
    sleep = RecordingSleep()
    error = await failure(kind, "http://no-such-host.invalid:8080", sleep)
    assert error.reason == "dns" and "no-such-host.invalid" in error.message
    assert "timed out" not in error.message and sleep.delays == []


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.value)
async def test_a_stream_the_server_cut_is_named_as_cut_with_its_url(kind: ProviderType) -> None:
    sleep = RecordingSleep()
    with SERVERS[kind](ScriptedBrain([ErrorReply("cut_off", chunks_before=("half ", "an answer"))])) as fake:
        error = await failure(kind, fake.base_url, sleep)
        address = fake.base_url.split("//", 1)[1].split("/", 1)[0]
    assert error.reason == "cut" and address in (error.url or "")
    assert "Could not reach" not in error.message and "closed the connection" in error.message


def test_the_url_named_carries_no_password_no_query_and_no_fragment() -> None:
    named = public_url(f"https://alice:hunter2@proxy.example:8443/v1/chat?key={KEY}#frag")
    assert named == "https://proxy.example:8443/v1/chat"


async def test_a_refused_connection_names_no_key() -> None:
    error = await failure(ProviderType.GEMINI, f"http://127.0.0.1:{closed_port()}", RecordingSleep())
    assert KEY not in error.message and KEY not in (error.url or "")


class Unanswered:
    """A port whose accept queue is full: the kernel drops further connection attempts unanswered, as a firewall
    dropping packets or a host that is down would."""

    def __enter__(self) -> str:
        self._server = socket.socket()
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(0)
        port = self._server.getsockname()[1]
        self._fillers = []
        for _ in range(3):
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", port))
            self._fillers.append(filler)
        return f"http://127.0.0.1:{port}"

    def __exit__(self, *_exc: object) -> None:
        for s in (*self._fillers, self._server):
            s.close()


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.value)
async def test_a_host_that_never_answers_is_given_up_on_after_the_connect_timeout_not_the_read_timeout(
        kind: ProviderType) -> None:
    sleep = RecordingSleep()
    factory = SdkAdapterFactory(timeout=60.0, env={}, retry=RetryPolicy(max_retries=2, sleep=sleep),
                                connect_timeout=0.5)
    with Unanswered() as url:
        adapter = factory.create(Provider(id=kind.value, name=kind.value.title(), type=kind, base_url=url), KEY)
        started = time.monotonic()
        with pytest.raises(NetworkError) as caught:
            await collect(adapter.send_message_stream(
                model_id="m", system_prompt=None, messages=History().user("hi").messages, tools=(),
                max_output_tokens=64, deadlines=Deadlines(headers_s=30.0)))
        await adapter.aclose()
    assert time.monotonic() - started < 10 and sleep.delays == []
    error = caught.value
    assert error.reason == "connect_timeout" and url in error.message and "connect" in error.message


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.value)
async def test_a_secure_connection_that_fails_is_named_as_such(kind: ProviderType) -> None:
    with SERVERS[kind](ScriptedBrain(["unused"])) as fake:  # plain HTTP behind an https:// URL
        address = fake.base_url.split("//", 1)[1].split("/", 1)[0]
        error = await failure(kind, f"https://{address}", RecordingSleep())
    assert error.reason == "tls" and address in error.message and "secure connection" in error.message
