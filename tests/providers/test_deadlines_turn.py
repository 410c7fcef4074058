"""A whole turn (the container's send_message over the real SDK adapters) meeting a deadline: it ends with one error
naming the deadline, and the text that arrived before is stored as an incomplete reply."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from app.container import Container
from data.providers.factory import SdkAdapterFactory
from data.providers.retry import RetryPolicy
from domain.chat import deadlines
from domain.events import ChatError, ChatEvent, TextDelta, Waiting
from domain.models import MessageType
from domain.settings import ContextSettings
from tests.fakes_config import FakeApiKeyStorage
from tests.fakeservers import ErrorReply, FakeServers, ScriptedBrain, fake_provider_servers
from tests.providers.helpers import KEY, RecordingSleep

PROVIDERS = ("anthropic", "openai", "gemini")


@pytest.fixture
def brain() -> ScriptedBrain:
    return ScriptedBrain()


@pytest.fixture
def servers(brain: ScriptedBrain) -> Iterator[FakeServers]:
    with fake_provider_servers(brain) as running:
        yield running


def container(tmp_path: Path, servers: FakeServers, **deadlines: float) -> Container:
    keys = FakeApiKeyStorage({p: KEY for p in PROVIDERS})
    factory = SdkAdapterFactory(env=servers.env(KEY), retry=RetryPolicy(max_retries=2, sleep=RecordingSleep()))
    c = Container.build(tmp_path / "home", adapter_factory=factory, keys=keys)
    c.settings.save_context_settings(replace(ContextSettings(), **deadlines))
    return c


async def turn(c: Container, provider: str) -> tuple[str, list[ChatEvent]]:
    session = c.create_session(provider_id=provider)

    async def run() -> list[ChatEvent]:
        return [event async for event in c.send_message(session.id, "hello", provider_id=provider)]

    return session.id, await asyncio.wait_for(run(), 10)


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_pings_only_ends_the_turn_with_the_idle_error_and_keeps_the_partial_reply(
    tmp_path: Path, servers: FakeServers, brain: ScriptedBrain, provider: str
) -> None:
    brain.push(ErrorReply("pings_only", interval=0.05, chunks_before=("The answer ", "is ")))
    c = container(tmp_path, servers, idle_timeout_s=0.5)
    try:
        session_id, events = await turn(c, provider)
        errors = [e for e in events if isinstance(e, ChatError)]
        assert [(e.kind, e.retryable) for e in errors] == [("timeout", True)]  # Retry offered
        assert errors[0].message.startswith("No data from the provider for 0.5 s (idle timeout).")
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "The answer is "
        replies = [m for m in c.messages.snapshot(session_id) if m.type is MessageType.AI_RESPONSE]
        assert [(m.content, m.incomplete) for m in replies] == [("The answer is ", True)]
    finally:
        c.close()


async def test_no_headers_is_retried_once_then_the_turn_ends_with_the_headers_error(
    tmp_path: Path, servers: FakeServers, brain: ScriptedBrain
) -> None:
    brain.push(ErrorReply("no_headers"), ErrorReply("no_headers"), "never sent")
    c = container(tmp_path, servers, headers_timeout_s=0.4)
    try:
        session_id, events = await turn(c, "anthropic")
        errors = [e for e in events if isinstance(e, ChatError)]
        assert [(e.kind, e.retryable) for e in errors] == [("timeout", True)]  # Retry offered
        assert errors[0].message.startswith("The provider sent no response headers within 0.4 s (headers timeout).")
        assert len(servers.anthropic.log) == 2
        assert [m.type for m in c.messages.snapshot(session_id)] == [MessageType.USER]  # nothing arrived to keep
    finally:
        c.close()


async def test_a_reply_that_never_ends_is_cut_at_the_round_deadline_and_kept(
    tmp_path: Path, servers: FakeServers, brain: ScriptedBrain
) -> None:
    brain.push(ErrorReply("endless", interval=0.2, chunks_before=("Counting: ",)))
    c = container(tmp_path, servers, idle_timeout_s=0.5, round_timeout_s=1.0)
    try:
        session_id, events = await turn(c, "openai")
        errors = [e for e in events if isinstance(e, ChatError)]
        assert len(errors) == 1 and "took longer than 1 s (round timeout)" in errors[0].message
        replies = [m for m in c.messages.snapshot(session_id) if m.type is MessageType.AI_RESPONSE]
        assert len(replies) == 1 and replies[0].incomplete
        assert replies[0].content.startswith("Counting: tick 1 tick 2 ")
    finally:
        c.close()


async def test_the_turn_reports_the_silence_before_the_idle_deadline(
    tmp_path: Path, servers: FakeServers, brain: ScriptedBrain, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deadlines, "WAITING_TICK_S", 0.25)
    brain.push(ErrorReply("pings_only", interval=0.05, chunks_before=()))
    c = container(tmp_path, servers, idle_timeout_s=0.9)
    try:
        _, events = await turn(c, "gemini")
        waits = [e.seconds for e in events if isinstance(e, Waiting)]
        assert len(waits) >= 2 and all(w > 0 for w in waits)  # at 0.25, 0.5 and 0.75 s of silence
        assert isinstance(events[-1], ChatError) and "(idle timeout)" in events[-1].message
    finally:
        c.close()
