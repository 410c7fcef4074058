"""UnitOfWork contract: every repository call inside `atomic()` is stored together, or none is; a nested block
joins the outer one."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.errors import NotFound
from domain.models import Agent, CompactionRecord, Memory, MessageType, Provider, ProviderType, Usage
from tests.contracts.conftest import T0, Store, msg, new_session
from tests.fakes import FakeMessageRepository, FakeSessionRepository
from tests.fakes_uow import FakeUnitOfWork


class Boom(Exception):
    """Raised inside a block to make it fail."""


def _turn(store: Store) -> None:
    """Writes through every kind of repository: what one chat turn with upkeep might do."""
    session = new_session(store, "s2", title="New chat")
    store.messages.add(msg("q", "s2", content="the question"))
    store.messages.add(msg("a", "s2", content="the answer", type=MessageType.AI_RESPONSE), full_output=None)
    store.messages.add(msg("t", "s2", type=MessageType.TOOL_RESULT, tool_output="x"), full_output="xxx")
    store.sessions.add_usage("s2", Usage(input_tokens=50, output_tokens=5))
    store.sessions.update(replace(session, title="Named"))
    store.sessions.apply_compaction("s2", summary="sum", boundary=2,
                                    record=CompactionRecord("s2", T0, 2, 10, 5, 1, "auto"))
    stored = store.messages.get("q")
    assert stored is not None
    store.messages.update(replace(stored, pinned=True))
    store.memories.add(Memory("mem", "a durable fact", T0, source_session_id="s2"))
    store.models.record_limit("openai", "gpt-learned", 9_000)
    store.providers.add(Provider(id="lm", name="LM", type=ProviderType.OPENAI_COMPATIBLE,
                                 base_url="http://localhost:1234/v1"))
    store.calibration.put("openai/gpt-4o", 1.1)


def _nothing_of_the_turn(store: Store) -> None:
    assert store.sessions.get("s2") is None
    assert [m.id for m in store.messages.snapshot("s2")] == []
    assert store.messages.count("s2") == 0
    assert store.messages.get("q") is None and store.messages.full_output("t") is None
    assert store.sessions.compactions("s2") == []
    assert store.memories.get("mem") is None
    assert store.models.get("openai", "gpt-learned") is None
    assert store.providers.get("lm") is None
    assert store.calibration.get("openai/gpt-4o") is None


def test_a_block_that_ends_stores_everything_done_inside_it(store: Store) -> None:
    with store.unit_of_work.atomic():
        _turn(store)
    session = store.sessions.get("s2")
    assert session is not None
    assert (session.title, session.message_count, session.last_message_preview) == ("Named", 3, "the answer")
    assert (session.total_input_tokens, session.compaction_count, session.compacted_summary) == (50, 1, "sum")
    assert [m.pinned for m in store.messages.snapshot("s2")] == [True, False, False]
    assert store.messages.full_output("t") == "xxx"
    assert store.memories.get("mem") is not None and store.providers.get("lm") is not None
    assert store.calibration.get("openai/gpt-4o") == 1.1


def test_a_block_that_raises_stores_nothing_and_lets_the_error_through(store: Store) -> None:
    with pytest.raises(Boom), store.unit_of_work.atomic():
        _turn(store)
        raise Boom
    _nothing_of_the_turn(store)


def test_a_rolled_back_block_leaves_earlier_data_exactly_as_it_was(store: Store) -> None:
    new_session(store)
    store.messages.add(msg("m1", content="kept"))
    store.sessions.add_usage("s1", Usage(input_tokens=7))
    before = (store.sessions.get("s1"), store.messages.snapshot("s1"), store.sessions.list())
    with pytest.raises(Boom), store.unit_of_work.atomic():
        store.messages.add(msg("m2", content="dropped"))
        store.sessions.add_usage("s1", Usage(input_tokens=100))
        store.sessions.delete("s1", T0)
        raise Boom
    assert (store.sessions.get("s1"), store.messages.snapshot("s1"), store.sessions.list()) == before


def test_reads_inside_a_block_see_its_own_writes(store: Store) -> None:
    with store.unit_of_work.atomic():
        new_session(store)
        store.messages.add(msg("m1", content="hi"))
        assert store.messages.count("s1") == 1
        assert store.sessions.get("s1").last_message_preview == "hi"  # type: ignore[union-attr]
        assert [s.id for s in store.sessions.list()] == ["s1"]


def test_a_repository_error_inside_a_block_rolls_back_what_came_before_it(store: Store) -> None:
    with pytest.raises(NotFound), store.unit_of_work.atomic():
        new_session(store)
        store.messages.add(msg("m1"))
        store.messages.add(msg("m2", "no-such-session"))
    assert store.sessions.get("s1") is None and store.messages.get("m1") is None


def test_a_caught_repository_error_does_not_undo_the_rest_of_the_block(store: Store) -> None:
    with store.unit_of_work.atomic():
        new_session(store)
        with pytest.raises(NotFound):
            store.messages.add(msg("m2", "no-such-session"))
        store.messages.add(msg("m1"))
    assert [m.id for m in store.messages.snapshot("s1")] == ["m1"]


def test_a_nested_block_joins_the_outer_one_and_is_undone_with_it(store: Store) -> None:
    with pytest.raises(Boom), store.unit_of_work.atomic():
        new_session(store)
        with store.unit_of_work.atomic():
            store.messages.add(msg("m1"))
        assert store.messages.count("s1") == 1
        raise Boom
    assert store.sessions.get("s1") is None and store.messages.get("m1") is None


def test_a_nested_block_has_no_rollback_of_its_own_the_outer_block_decides(store: Store) -> None:
    with store.unit_of_work.atomic():
        new_session(store)
        with pytest.raises(Boom), store.unit_of_work.atomic():
            store.messages.add(msg("m1"))
            raise Boom
        store.messages.add(msg("m2"))
    assert [m.id for m in store.messages.snapshot("s1")] == ["m1", "m2"]
    assert store.sessions.get("s1").message_count == 2  # type: ignore[union-attr]


def test_blocks_one_after_another_are_independent(store: Store) -> None:
    with store.unit_of_work.atomic():
        new_session(store)
    with pytest.raises(Boom), store.unit_of_work.atomic():
        store.messages.add(msg("m1"))
        raise Boom
    with store.unit_of_work.atomic():
        store.messages.add(msg("m2"))
    assert [m.id for m in store.messages.snapshot("s1")] == ["m2"]
    assert store.sessions.get("s1").message_count == 1  # type: ignore[union-attr]


@pytest.mark.parametrize("only_some", [False, True], ids=["every-repository", "sessions-and-messages-only"])
def test_a_fake_rollback_restores_state_in_place_and_keeps_the_fakes_linked(fake: Store, only_some: bool) -> None:
    sessions, messages, agents = fake.sessions, fake.messages, fake.agents
    assert isinstance(sessions, FakeSessionRepository) and isinstance(messages, FakeMessageRepository)
    uow = FakeUnitOfWork(sessions, messages) if only_some else fake.unit_of_work
    new_session(fake)
    with pytest.raises(Boom), uow.atomic():
        messages.add(msg("m1"))
        raise Boom
    assert messages.sessions is sessions and sessions.linked_messages is messages
    assert sessions.agents is agents
    messages.add(msg("m2"))
    assert sessions.sessions["s1"].message_count == 1
    agents.add(Agent(id="late", name="Late"))
    assert sessions.update(replace(new_session(fake, "s2"), current_agent_id="late")).current_agent_id == "late"
    sessions.purge("s1")
    assert messages.get("m2") is None
