"""Every SDK client a chat opens is closed on its own event loop when the command ends (an idle timeout too), and an
unclosed client left by an earlier in-process run or test never prints into a later run's standard error."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.aiohttp_sessions import SessionTracker
from tests.cli.harness import Cli
from tests.fakeservers import ErrorReply, FakeAnthropicServer, FakeOpenAIServer, ScriptedBrain
from tests.fakeservers.brain import Answer, NormalizedRequest
from tests.fakeservers.server import FakeProviderServer

KEY = "sk-closed-clients-key-1"
FLAVOURS = {"anthropic": (FakeAnthropicServer, "ANTHROPIC"), "openai": (FakeOpenAIServer, "OPENAI")}
IDLE_ERROR = "palimpsest: No data from the provider for 0.5 s (idle timeout)."


def cli_for(tmp_path: Path, server: FakeProviderServer, flavour: str) -> Cli:
    (tmp_path / "keychain").mkdir(exist_ok=True)
    prefix = FLAVOURS[flavour][1]
    env = {f"{prefix}_API_KEY": KEY, f"{prefix}_BASE_URL": server.base_url}
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", env)


@pytest.fixture()
def no_automatic_gc() -> Iterator[None]:
    """Garbage is collected only where a test (or the harness) says, so when a finalizer runs is not left to chance."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class CollectingBrain(ScriptedBrain):
    """Collects this process's garbage while it answers: inside the in-process command, as the cyclic collector may
    do at any allocation on a busy machine."""

    def respond(self, request: NormalizedRequest) -> Answer:
        gc.collect()
        return super().respond(request)


@pytest.mark.parametrize("flavour", list(FLAVOURS))
@pytest.mark.parametrize("reply", ["Hello there", ErrorReply("pings_only", interval=0.05)], ids=["reply", "idle"])
def test_every_sdk_client_of_a_chat_is_closed_when_it_ends(
    tmp_path: Path, flavour: str, reply: str | ErrorReply, no_automatic_gc: None
) -> None:
    with FLAVOURS[flavour][0](ScriptedBrain([reply]), api_key=KEY) as server:
        cli = cli_for(tmp_path, server, flavour)
        with SessionTracker() as tracker:
            result = cli.run("chat", "-p", flavour, "--idle-timeout", "0.5", "hello", subprocess_run=False)
    assert len(tracker.sessions) >= 1 and tracker.unclosed() == [], result.err
    lines = result.err_lines
    if isinstance(reply, str):
        assert (result.code, result.out, len(lines)) == (0, "Hello there\n", 1), result.err
    else:
        assert (result.code, len(lines)) == (1, 2) and lines[1].startswith(IDLE_ERROR), result.err


def test_an_unclosed_client_left_from_before_never_prints_into_an_in_process_run(
    tmp_path: Path, no_automatic_gc: None
) -> None:
    with SessionTracker() as tracker:
        leftover_loop = asyncio.new_event_loop()
        leftover_loop.run_until_complete(asyncio.sleep(0))  # as an earlier test's loop: it made a client, then ended
        holder: list[object] = []
        holder.extend([holder, leftover_session(leftover_loop)])  # in a cycle: only the collector frees it
        leftover_loop.close()
        del holder
    assert len(tracker.unclosed()) == 1
    tracker.sessions.clear()
    with FakeAnthropicServer(CollectingBrain([ErrorReply("pings_only", interval=0.05)]), api_key=KEY) as server:
        result = cli_for(tmp_path, server, "anthropic").run(
            "chat", "-p", "anthropic", "--idle-timeout", "0.5", "hello", subprocess_run=False)
    assert "Unclosed" not in result.err, result.err
    lines = result.err_lines
    assert len(lines) == 2 and lines[1].startswith(IDLE_ERROR), result.err


def leftover_session(loop: asyncio.AbstractEventLoop) -> object:
    """An aiohttp session made on `loop` and never closed."""
    import aiohttp

    async def make() -> aiohttp.ClientSession:
        return aiohttp.ClientSession()

    return loop.run_until_complete(make())
