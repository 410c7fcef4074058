"""ContainerBackend: the UI protocol over the real Container (SQLite under PALIMPSEST_HOME, fake model adapters)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.container import Container
from app.gui.bridge import ContainerBackend
from app.gui.pricing import price_of
from domain.errors import AuthenticationFailed
from domain.events import ChatError, ChatEvent, ResponseComplete, TextDelta
from domain.models import MessageType
from tests.fakes_turn import FakeAdapterFactory, reply
from ui.backend import Selection

CLAUDE = Selection("anthropic", "claude-sonnet-4-5-20250929")


@pytest.fixture
def factory() -> FakeAdapterFactory:
    return FakeAdapterFactory(default_completion="A title")


@pytest.fixture
def container(factory: FakeAdapterFactory) -> Iterator[Container]:
    c = Container.build(adapter_factory=factory)
    yield c
    c.close()


@pytest.fixture
def bridge(container: Container) -> ContainerBackend:
    return ContainerBackend(container)


async def turn(bridge: ContainerBackend, factory: FakeAdapterFactory, session_id: str, text: str) -> list[ChatEvent]:
    factory.adapter("anthropic").scripts.append(reply(f"re: {text}", input_tokens=1_000_000, output_tokens=100_000))
    return [e async for e in bridge.send(session_id, text, CLAUDE)]


async def test_startup_reports_no_key_until_one_is_saved_to_the_keychain(bridge: ContainerBackend) -> None:
    info = await bridge.startup()
    assert not info.any_key and info.keychain_problem is None
    assert {p.provider.id for p in info.providers} >= {"anthropic", "openai", "gemini"}
    await bridge.set_key("anthropic", "sk-ant-test")
    info = await bridge.startup()
    anthropic = next(p for p in info.providers if p.provider.id == "anthropic")
    assert anthropic.key_source == "keychain" and info.any_key
    assert info.default_selection is not None and info.default_selection.provider_id == "anthropic"


async def test_a_turn_streams_events_and_the_conversation_loads_with_paging(
    bridge: ContainerBackend, factory: FakeAdapterFactory
) -> None:
    await bridge.set_key("anthropic", "sk-ant-test")
    session = await bridge.create_session(None, CLAUDE)
    for i in range(3):
        events = await turn(bridge, factory, session.id, f"question {i}")
        assert any(isinstance(e, ResponseComplete) for e in events)
        assert any(isinstance(e, TextDelta) for e in events)
    page = await bridge.load_conversation(session.id, tail=4)
    assert page.total_count == 6 and page.has_older
    assert [m.content for m in page.messages] == ["question 1", "re: question 1", "question 2", "re: question 2"]
    older = await bridge.load_older(session.id, page.messages[0].seq, 10)
    assert [m.content for m in older.messages] == ["question 0", "re: question 0"]


async def test_usage_and_cost_come_from_the_stored_replies(
    bridge: ContainerBackend, factory: FakeAdapterFactory
) -> None:
    await bridge.set_key("anthropic", "sk-ant-test")
    session = await bridge.create_session(None, CLAUDE)
    await turn(bridge, factory, session.id, "hello")
    usage = await bridge.usage_summary(session.id)
    assert usage.input_tokens == 1_000_000 and usage.output_tokens == 100_000
    price = price_of(CLAUDE.model_id)
    assert price is not None and usage.cost_usd == pytest.approx(price.input + price.output * 0.1)


async def test_compaction_reset_summary_edit_and_pin_work_through_the_bridge(
    bridge: ContainerBackend, factory: FakeAdapterFactory
) -> None:
    await bridge.set_key("anthropic", "sk-ant-test")
    session = await bridge.create_session(None, CLAUDE)
    for i in range(6):
        await turn(bridge, factory, session.id, f"fact number {i} " + "word " * 400)
    factory.adapter("anthropic").completions.append("## Goal\nRemember the facts.")
    result = await bridge.compact_now(session.id, CLAUDE, "keep the numbers")
    assert result.did_compact, result.reason
    page = await bridge.load_conversation(session.id, tail=200)
    assert page.boundary_seq is not None and page.summarized_count == page.boundary_seq - 1
    assert page.session.compacted_summary and "Remember the facts" in page.session.compacted_summary
    assert any("keep the numbers" in p[1] for p in factory.adapter("anthropic").completion_prompts)
    edited = await bridge.edit_summary(session.id, "My own summary")
    assert edited.compacted_summary == "My own summary"
    first = page.messages[0]
    pinned = await bridge.set_pinned(first.id, True)
    assert pinned.pinned
    status = await bridge.context_status(session.id, CLAUDE)
    assert status.window == 200_000 and status.breakdown.summary > 0
    reset = await bridge.reset_context(session.id)
    assert reset.compacted_summary is None
    page = await bridge.load_conversation(session.id, tail=200)
    assert page.summarized_count == 0 and page.total_count == 12


async def test_retry_sends_the_last_user_message_again(bridge: ContainerBackend, factory: FakeAdapterFactory) -> None:
    await bridge.set_key("anthropic", "sk-ant-test")
    session = await bridge.create_session(None, CLAUDE)
    factory.adapter("anthropic").scripts.append(AuthenticationFailed("Anthropic"))
    failed = [e async for e in bridge.send(session.id, "are you there?", CLAUDE)]
    assert failed[-1].kind == "authentication"  # type: ignore[union-attr]
    factory.adapter("anthropic").scripts.append(reply("yes"))
    events = [e async for e in bridge.retry(session.id, CLAUDE)]
    assert any(isinstance(e, ResponseComplete) for e in events)
    sent = factory.adapter("anthropic").requests[-1].messages
    assert sent[-1].type is MessageType.USER and sent[-1].content == "are you there?"
    assert [m.content for m in sent if m.type is MessageType.USER] == ["are you there?"]  # stored once, not twice


async def test_retry_without_any_message_is_a_clear_error(bridge: ContainerBackend) -> None:
    session = await bridge.create_session(None, CLAUDE)
    events = [e async for e in bridge.retry(session.id, CLAUDE)]
    assert len(events) == 1 and isinstance(events[0], ChatError)
    assert events[0].kind == "invalid_input" and "no message to retry" in events[0].message


async def test_test_connection_lists_models_or_says_why_not(
    bridge: ContainerBackend, factory: FakeAdapterFactory
) -> None:
    from domain.models import AiModel

    factory.adapter("openai").models = [AiModel("gpt-4o", None, "openai"), AiModel("gpt-4o-mini", None, "openai")]
    ok = await bridge.test_connection("openai")
    assert ok.ok and ok.model_count >= 2
    factory.adapter("gemini").models = []

    async def refuse() -> list[AiModel]:
        raise AuthenticationFailed("Google Gemini")

    factory.adapter("gemini").list_models = refuse  # type: ignore[method-assign]
    bad = await bridge.test_connection("gemini")
    assert not bad.ok and "rejected the API key" in bad.message


async def test_switching_model_and_agent_is_stored_on_the_session(bridge: ContainerBackend) -> None:
    session = await bridge.create_session(None, CLAUDE)
    agent = await bridge.save_agent((await bridge.list_agents())[0].__class__(id="", name="Coder"))
    switched = await bridge.select(session.id, Selection("openai", "gpt-4o"), agent.id)
    assert (switched.current_provider_id, switched.current_model_id, switched.current_agent_id) == (
        "openai", "gpt-4o", agent.id)


async def test_keys_never_reach_the_database_file(bridge: ContainerBackend) -> None:
    await bridge.set_key("openai", "sk-very-secret-value")
    home = Path(__import__("os").environ["PALIMPSEST_HOME"])
    for path in home.rglob("*"):
        if path.is_file():
            assert b"sk-very-secret-value" not in path.read_bytes()


def test_prices_come_from_the_registry_for_exact_dated_and_alias_ids() -> None:
    from data.registry import load_registry

    sonnet = load_registry().price("claude-sonnet-4-5-20250929")
    assert sonnet is not None and price_of("claude-sonnet-4-5-20250929") == sonnet
    assert price_of("claude-sonnet-4-5") == sonnet  # undated alias of the dated entry
    assert price_of("gpt-4o-mini-2024-07-18") == load_registry().price("gpt-4o-mini")  # dated variant
    assert price_of("llama3.1:8b") is None  # local models have no price


async def test_startup_counts_only_sessions_with_messages(
    bridge: ContainerBackend, factory: FakeAdapterFactory
) -> None:
    empty = await bridge.create_session(None, CLAUDE)
    assert not (await bridge.startup()).has_sessions  # a left-over empty session keeps the first-run screen
    await turn(bridge, factory, empty.id, "hello")
    assert (await bridge.startup()).has_sessions


async def test_startup_purges_conversations_deleted_over_30_days_ago_with_their_attachment_files(
    bridge: ContainerBackend, container: Container, tmp_path
) -> None:
    from datetime import timedelta

    from data.attachments.intake import AttachmentIntake
    from domain.models import Message, MessageType
    from tests.attachment_samples import png

    shot = AttachmentIntake(container.storage.attachment_files).from_bytes("shot.png", png())
    old = container.create_session(agent=None)
    recent = container.create_session(agent=None)
    for session in (old, recent):
        container.messages.add(Message(f"m-{session.id}", session.id, MessageType.USER, "look",
                                       attachments=(shot,) if session is old else ()))
    now = container.clock.now()
    container.sessions.delete(old.id, now - timedelta(days=31))
    container.sessions.delete(recent.id, now - timedelta(days=2))
    await bridge.startup()
    remaining = {s.id for s in container.sessions.list(include_deleted=True)}
    assert old.id not in remaining and recent.id in remaining  # the recent one can still be restored
    assert not container.storage.attachment_files.exists(shot.sha256)


async def test_a_sessions_own_prompt_is_stored_read_back_and_moves_the_gauges_system_row(
    bridge: ContainerBackend, factory: FakeAdapterFactory
) -> None:
    session = await bridge.create_session(None, CLAUDE)
    before = await bridge.session_prompt(session.id)
    assert before.own is None and before.agent_name == "General assistant"
    agents = (await bridge.context_status(session.id, CLAUDE)).breakdown.system
    stored = await bridge.set_session_prompt(session.id, "Answer as a pirate. " * 100)
    assert (await bridge.session_prompt(session.id)).own == stored.system_prompt
    assert (await bridge.context_status(session.id, CLAUDE)).breakdown.system > agents + 200
    await turn(bridge, factory, session.id, "hello")
    assert (factory.adapter("anthropic").requests[-1].system_prompt or "").startswith("Answer as a pirate.")
    await bridge.set_session_prompt(session.id, " ")
    assert (await bridge.session_prompt(session.id)).own is None
    assert (await bridge.context_status(session.id, CLAUDE)).breakdown.system == agents
