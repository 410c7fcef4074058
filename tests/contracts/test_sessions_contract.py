"""SessionRepository contract: callers own title, agent, model choice, summary and boundary; the store owns the
message count, the preview, the token totals and the compaction count."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from domain.errors import InvalidInput, NotFound
from domain.models import CompactionRecord, MessageType, Session, Usage
from tests.contracts.conftest import T0, Store, msg, new_session


def _record(session_id: str = "s1", boundary: int = 3) -> CompactionRecord:
    return CompactionRecord(session_id=session_id, created_at=T0, boundary=boundary, tokens_before=90_000,
                            tokens_after=20_000, summary_tokens=800, trigger="auto")


def test_create_stores_what_the_caller_gave_and_starts_the_store_owned_counters_at_zero(store: Store) -> None:
    given = Session(
        id="s1", title="Trip", current_agent_id="general-assistant", created_at=T0, updated_at=T0 + timedelta(1),
        message_count=7, compaction_count=3, total_input_tokens=100, total_output_tokens=20,
        total_cache_read_tokens=5, compacted_summary="S", compact_boundary=4, flushed_in_compaction_cycle=True,
        current_provider_id="openai", current_model_id="gpt-4o", reasoning="high",
        system_prompt="Be brief.",
    )
    created = store.sessions.create(given)
    assert created == replace(given, message_count=0, compaction_count=0, total_input_tokens=0,
                              total_output_tokens=0, total_cache_read_tokens=0)
    assert store.sessions.get("s1") == created


def test_an_update_from_a_stale_copy_never_moves_updated_at_backwards(store: Store) -> None:
    stale = new_session(store)
    store.messages.add(msg("m1", created_at=T0 + timedelta(hours=3)))
    bumped = store.sessions.get("s1")
    assert bumped is not None and bumped.updated_at == T0 + timedelta(hours=3)
    store.sessions.update(replace(stale, title="Renamed"))
    after = store.sessions.get("s1")
    assert after is not None and after.title == "Renamed" and after.updated_at == bumped.updated_at


def test_a_duplicate_session_id_is_refused_and_the_first_is_kept(store: Store) -> None:
    new_session(store, title="First")
    with pytest.raises(InvalidInput):
        new_session(store, title="Second")
    assert store.sessions.get("s1").title == "First"  # type: ignore[union-attr]


def test_a_session_of_an_unknown_agent_is_not_found_on_create_and_update(store: Store) -> None:
    with pytest.raises(NotFound):
        new_session(store, current_agent_id="ghost")
    assert store.sessions.get("s1") is None
    session = new_session(store)
    with pytest.raises(NotFound):
        store.sessions.update(replace(session, current_agent_id="ghost", title="Renamed"))
    assert store.sessions.get("s1") == session


def test_update_writes_every_field_the_caller_owns(store: Store) -> None:
    session = new_session(store, current_agent_id=None)
    later = T0 + timedelta(hours=2)
    changed = replace(
        session, title="Renamed", current_agent_id="general-assistant", is_active=False, deleted_at=later,
        updated_at=later, compacted_summary="summary", compact_boundary=5, flushed_in_compaction_cycle=True,
        current_provider_id="gemini", current_model_id="gemini-2.5-pro", reasoning="off",
        system_prompt="Answer in French.",
    )
    assert store.sessions.update(changed) == changed
    assert store.sessions.get("s1") == changed


@pytest.mark.parametrize(("field", "value"), [
    ("message_count", 99), ("last_message_preview", "not from a message"), ("total_input_tokens", 1_000),
    ("total_output_tokens", 500), ("total_cache_read_tokens", 250), ("compaction_count", 4),
])
def test_update_ignores_a_field_the_store_owns(store: Store, field: str, value: object) -> None:
    session = new_session(store)
    store.messages.add(msg("m1", content="first question"))
    before = store.sessions.get("s1")
    assert before is not None
    updated = store.sessions.update(replace(before, **{field: value}))  # type: ignore[arg-type]
    assert getattr(updated, field) == getattr(before, field) != value
    assert store.sessions.get("s1") == before
    assert session.id == updated.id


def test_update_from_a_stale_copy_never_rolls_back_the_counters(store: Store) -> None:
    stale = new_session(store)
    store.messages.add(msg("m1", content="hello there"))
    store.sessions.add_usage("s1", Usage(input_tokens=100, output_tokens=20, cache_read_tokens=7))
    store.sessions.apply_compaction("s1", summary="s", boundary=1, record=_record())
    updated = store.sessions.update(replace(stale, title="Renamed", current_model_id="gpt-4o",
                                            compacted_summary="s", compact_boundary=1))
    assert (updated.title, updated.current_model_id) == ("Renamed", "gpt-4o")
    assert (updated.message_count, updated.last_message_preview) == (1, "hello there")
    assert (updated.total_input_tokens, updated.total_output_tokens, updated.total_cache_read_tokens) == (100, 20, 7)
    assert updated.compaction_count == 1
    assert store.sessions.get("s1") == updated


def test_update_can_reset_the_summary_and_boundary(store: Store) -> None:
    new_session(store)
    compacted = store.sessions.apply_compaction("s1", summary="s", boundary=4, record=_record())
    reset = store.sessions.update(replace(compacted, compacted_summary=None, compact_boundary=None))
    assert (reset.compacted_summary, reset.compact_boundary, reset.compaction_count) == (None, None, 1)


def test_missing_sessions_are_not_found(store: Store) -> None:
    ghost = Session(id="ghost", title="x", current_agent_id=None, created_at=T0, updated_at=T0)
    for call in (lambda: store.sessions.update(ghost), lambda: store.sessions.add_usage("ghost", Usage(1)),
                 lambda: store.sessions.delete("ghost", T0), lambda: store.sessions.restore("ghost"),
                 lambda: store.sessions.purge("ghost")):
        with pytest.raises(NotFound):
            call()
    assert store.sessions.get("ghost") is None


def test_list_is_newest_first_and_shows_soft_deleted_sessions_only_on_request(store: Store) -> None:
    for i, sid in enumerate(("a", "b", "c")):
        new_session(store, sid, minutes=i)
    store.sessions.delete("b", T0)
    assert [s.id for s in store.sessions.list()] == ["c", "a"]
    assert [s.id for s in store.sessions.list(include_deleted=True)] == ["c", "b", "a"]
    assert store.sessions.get("b").deleted_at == T0  # type: ignore[union-attr]
    store.sessions.restore("b")
    assert [s.id for s in store.sessions.list()] == ["c", "b", "a"]


def test_a_new_message_moves_its_session_to_the_top_of_the_list(store: Store) -> None:
    new_session(store, "old", minutes=0)
    new_session(store, "new", minutes=5)
    store.messages.add(msg("m1", "old", created_at=T0 + timedelta(minutes=10)))
    assert [s.id for s in store.sessions.list()] == ["old", "new"]


def test_add_usage_accumulates_every_total(store: Store) -> None:
    new_session(store)
    store.sessions.add_usage("s1", Usage(input_tokens=10, output_tokens=2, cache_read_tokens=1))
    store.sessions.add_usage("s1", Usage(input_tokens=5, output_tokens=3, cache_read_tokens=0, cache_write_tokens=9))
    total = store.sessions.get("s1")
    assert total is not None
    assert (total.total_input_tokens, total.total_output_tokens, total.total_cache_read_tokens) == (15, 5, 1)


def test_negative_usage_is_refused_and_changes_nothing(store: Store) -> None:
    session = new_session(store)
    with pytest.raises(InvalidInput):
        store.sessions.add_usage("s1", Usage(input_tokens=-1))
    assert store.sessions.get("s1") == session


def test_apply_compaction_stores_summary_boundary_count_flush_reset_and_log(store: Store) -> None:
    session = new_session(store)
    store.sessions.update(replace(session, flushed_in_compaction_cycle=True))
    first = store.sessions.apply_compaction("s1", summary="one", boundary=3, record=_record(boundary=3))
    second = store.sessions.apply_compaction("s1", summary="two", boundary=8, record=_record(boundary=8))
    assert (first.compaction_count, first.flushed_in_compaction_cycle) == (1, False)
    assert (second.compacted_summary, second.compact_boundary, second.compaction_count) == ("two", 8, 2)
    assert store.sessions.get("s1") == second
    assert store.sessions.compactions("s1") == [replace(_record(boundary=3), summary="one"),
                                                replace(_record(boundary=8), summary="two")]


@pytest.mark.parametrize(("summary", "boundary"), [("  ", 3), ("ok", -1)])
def test_a_blank_summary_or_negative_boundary_is_refused_and_changes_nothing(
    store: Store, summary: str, boundary: int
) -> None:
    session = new_session(store)
    with pytest.raises(InvalidInput):
        store.sessions.apply_compaction("s1", summary=summary, boundary=boundary, record=_record())
    assert store.sessions.get("s1") == session
    assert store.sessions.compactions("s1") == []


def test_apply_compaction_on_a_missing_session_logs_nothing(store: Store) -> None:
    with pytest.raises(NotFound):
        store.sessions.apply_compaction("ghost", summary="s", boundary=1, record=_record("ghost"))
    assert store.sessions.compactions("ghost") == []


def test_purge_removes_the_session_with_its_messages_archive_and_compactions(store: Store) -> None:
    new_session(store)
    new_session(store, "other")
    store.messages.add(msg("t1", type=MessageType.TOOL_RESULT, tool_output="x"), full_output="xxxx")
    store.messages.add(msg("o1", "other", content="kept"))
    store.sessions.apply_compaction("s1", summary="sum", boundary=1, record=_record())
    store.sessions.purge("s1")
    assert store.sessions.get("s1") is None
    assert (store.messages.get("t1"), store.messages.full_output("t1")) == (None, None)
    assert (store.messages.snapshot("s1"), store.messages.count("s1")) == ([], 0)
    assert store.sessions.compactions("s1") == []
    assert store.sessions.search("sum") == []
    assert [m.id for m in store.messages.snapshot("other")] == ["o1"]


def test_search_finds_titles_summaries_message_content_and_tool_output(store: Store) -> None:
    new_session(store, "s1", title="Trip planning", minutes=1)
    new_session(store, "s2", title="Database work", minutes=2)
    store.messages.add(msg("m1", "s1", "We should visit Lisbon in spring"))
    store.messages.add(msg("t1", "s2", "", type=MessageType.TOOL_RESULT, tool_output="ERROR: deadlock detected"))
    store.sessions.apply_compaction("s2", summary="The user tuned postgres vacuum settings", boundary=1,
                                    record=_record("s2", 1))
    assert [(h.session_id, h.title) for h in store.sessions.search("lisbon")] == [("s1", "Trip planning")]
    assert [h.session_id for h in store.sessions.search("deadlock")] == ["s2"]
    assert [h.session_id for h in store.sessions.search("trip")] == ["s1"]
    assert [h.session_id for h in store.sessions.search("vacuum")] == ["s2"]
    assert [h.session_id for h in store.sessions.search("lisb spring")] == ["s1"]
    assert store.sessions.search("lisbon deadlock") == []
    assert store.sessions.search("lisbon", limit=0) == []


def test_search_follows_edits_and_skips_soft_deleted_sessions(store: Store) -> None:
    session = new_session(store, title="Trip planning")
    stored = store.messages.add(msg("m1", content="We should visit Lisbon"))
    store.messages.update(replace(stored, content="Porto instead"))
    store.sessions.update(replace(session, title="Holiday"))
    assert store.sessions.search("lisbon") == []
    assert [h.session_id for h in store.sessions.search("porto")] == ["s1"]
    assert [h.session_id for h in store.sessions.search("holiday")] == ["s1"]
    store.sessions.delete("s1", T0)
    assert store.sessions.search("porto") == []


@pytest.mark.parametrize("text", ['foo"', "AND", "*", "", "   ", "NEAR(a b)", "a OR", '"unbalanced', "-x", "^"])
def test_any_user_text_is_a_safe_query(store: Store, text: str) -> None:
    new_session(store, title="Trip")
    store.messages.add(msg("m1", content="this AND that"))
    assert isinstance(store.sessions.search(text), list)


def test_operators_and_accents_are_searched_as_plain_words(store: Store) -> None:
    new_session(store, title="Café notes")
    store.messages.add(msg("m1", content="this AND that"))
    assert [h.session_id for h in store.sessions.search("AND")] == ["s1"]
    assert [h.session_id for h in store.sessions.search("cafe")] == ["s1"]


def test_a_hit_names_the_matching_message_and_archived_sessions_stay_searchable(store: Store) -> None:
    session = new_session(store, "s1", title="Trip planning", minutes=1)
    store.messages.add(msg("m1", "s1", "We should visit Lisbon in spring"))
    store.messages.add(msg("t1", "s1", "", type=MessageType.TOOL_RESULT, tool_output="ERROR: deadlock detected"))
    assert [(h.session_id, h.message_id) for h in store.sessions.search("lisbon")] == [("s1", "m1")]
    assert [h.message_id for h in store.sessions.search("deadlock")] == ["t1"]
    assert [h.message_id for h in store.sessions.search("planning")] == [None]  # the title matched
    archived = store.sessions.update(replace(session, is_active=False))
    assert not archived.is_active and not store.sessions.get("s1").is_active  # type: ignore[union-attr]
    assert [(h.message_id, h.archived) for h in store.sessions.search("lisbon")] == [("m1", True)]


def test_reset_context_drops_summary_and_boundary_and_logs_the_reset_without_counting_it(store: Store) -> None:
    session = new_session(store)
    store.messages.add(msg("m1", content="hello there"))
    store.sessions.update(replace(session, flushed_in_compaction_cycle=True))
    store.sessions.apply_compaction("s1", summary="one", boundary=1, record=_record(boundary=1))
    reset = replace(_record(boundary=0), trigger="reset", created_at=T0 + timedelta(days=2), through_id="m1",
                    tokens_before=0, tokens_after=0, summary_tokens=0)
    after = store.sessions.reset_context("s1", reset)
    assert (after.compacted_summary, after.compact_boundary, after.flushed_in_compaction_cycle) == (None, None, False)
    assert after.compaction_count == 1 and after.updated_at == T0 + timedelta(days=2)
    assert store.sessions.get("s1") == after
    assert store.sessions.compactions("s1")[-1] == reset
    assert store.sessions.reset_context("s1", None).compacted_summary is None  # nothing logged without a record
    assert len(store.sessions.compactions("s1")) == 2
    with pytest.raises(NotFound):
        store.sessions.reset_context("ghost", None)


def test_update_fields_writes_only_the_named_fields_and_keeps_a_compaction_made_since_the_read(store: Store) -> None:
    stale = new_session(store, title="Old", reasoning="low", system_prompt="Be brief.")
    store.sessions.apply_compaction("s1", summary="Fresh summary", boundary=5, record=_record())
    renamed = store.sessions.update_fields(stale.id, title="New", updated_at=T0 + timedelta(hours=1))
    assert (renamed.title, renamed.updated_at) == ("New", T0 + timedelta(hours=1))
    assert (renamed.compacted_summary, renamed.compact_boundary, renamed.compaction_count) == ("Fresh summary", 5, 1)
    assert (renamed.reasoning, renamed.system_prompt, renamed.is_active) == ("low", "Be brief.", True)
    assert store.sessions.get("s1") == renamed
    archived = store.sessions.update_fields("s1", is_active=False, reasoning=None, system_prompt=None)
    assert (archived.is_active, archived.reasoning, archived.system_prompt) == (False, None, None)
    assert archived.title == "New"
    assert archived.updated_at == T0 + timedelta(hours=1)


def test_update_fields_never_moves_updated_at_backwards(store: Store) -> None:
    new_session(store, minutes=60)
    kept = store.sessions.update_fields("s1", title="Renamed", updated_at=T0)
    assert (kept.title, kept.updated_at) == ("Renamed", T0 + timedelta(minutes=60))


def test_update_fields_refuses_a_field_the_store_owns_and_an_unknown_session(store: Store) -> None:
    new_session(store)
    for owned in ("message_count", "compaction_count", "compact_boundary", "total_input_tokens", "bogus"):
        with pytest.raises(InvalidInput):
            store.sessions.update_fields("s1", **{owned: 1})
    with pytest.raises(NotFound):
        store.sessions.update_fields("ghost", title="Nobody")
