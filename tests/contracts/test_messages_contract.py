"""MessageRepository contract: per-session seq, every field kept, and every add keeping its session's message
count, preview and recency in the same step."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from domain.errors import InvalidInput, NotFound
from domain.models import MessageType, ReasoningBlock, ReasoningKind, ToolStatus
from tests.contracts.conftest import T0, Store, msg, new_session


def test_add_assigns_the_next_seq_of_its_session_only(store: Store) -> None:
    new_session(store, "s1")
    new_session(store, "s2")
    seqs = [store.messages.add(msg(f"a{i}", "s1")).seq for i in range(3)]
    assert seqs == [1, 2, 3]
    assert store.messages.add(msg("b0", "s2")).seq == 1
    assert [m.id for m in store.messages.snapshot("s1")] == ["a0", "a1", "a2"]


def test_every_field_round_trips(store: Store) -> None:
    new_session(store)
    original = msg(
        "t1", type=MessageType.TOOL_RESULT, content="", thinking_content="hmm", tool_call_id="call-1",
        tool_name="http_request", tool_input='{"url": "x"}', tool_output="out", tool_status=ToolStatus.ERROR,
        tool_output_original_chars=99999, model_id="gpt-4o", provider_id="openai", input_tokens=5,
        output_tokens=7, incomplete=True, pinned=True, has_image=True, reasoning_tokens=3, thinking_ms=1_250,
        reasoning=(ReasoningBlock(ReasoningKind.THINKING, "hmm", signature="sig", provider_id="anthropic",
                                  model_id="claude-x"),),
    )
    stored = store.messages.add(original)
    assert stored == replace(original, seq=1)
    assert store.messages.get("t1") == stored
    assert store.messages.snapshot("s1") == [stored]


def test_a_missing_created_at_is_filled_in(store: Store) -> None:
    new_session(store)
    stored = store.messages.add(msg("m1", created_at=None))
    assert stored.created_at is not None
    assert store.messages.get("m1").created_at == stored.created_at  # type: ignore[union-attr]


def test_add_to_a_missing_session_is_not_found_and_stores_nothing(store: Store) -> None:
    with pytest.raises(NotFound):
        store.messages.add(msg("m1", "nope"))
    assert store.messages.get("m1") is None
    assert (store.messages.snapshot("nope"), store.messages.count("nope")) == ([], 0)


def test_a_duplicate_id_is_refused_and_the_first_message_and_count_are_kept(store: Store) -> None:
    new_session(store)
    new_session(store, "s2")
    store.messages.add(msg("m1", content="first"))
    with pytest.raises(InvalidInput):
        store.messages.add(msg("m1", content="second"))
    with pytest.raises(InvalidInput):
        store.messages.add(msg("m1", "s2", content="elsewhere"))
    assert [m.content for m in store.messages.snapshot("s1")] == ["first"]
    assert store.messages.snapshot("s2") == []
    assert store.sessions.get("s1").message_count == 1  # type: ignore[union-attr]
    assert store.sessions.get("s2").message_count == 0  # type: ignore[union-attr]


def test_every_add_counts_the_message_on_its_session(store: Store) -> None:
    new_session(store)
    new_session(store, "s2")
    for i, kind in enumerate(MessageType):
        store.messages.add(msg(f"m{i}", type=kind, content=""))
    session = store.sessions.get("s1")
    assert session is not None and session.message_count == len(MessageType)
    assert store.messages.count("s1") == len(store.messages.snapshot("s1")) == len(MessageType)
    assert store.sessions.get("s2").message_count == store.messages.count("s2") == 0  # type: ignore[union-attr]


def test_the_preview_is_the_newest_user_or_ai_text_whitespace_collapsed(store: Store) -> None:
    new_session(store)
    store.messages.add(msg("m1", content="What is   the\nweather?"))
    assert store.sessions.get("s1").last_message_preview == "What is the weather?"  # type: ignore[union-attr]
    store.messages.add(msg("m2", type=MessageType.AI_RESPONSE, content="  Sunny,\tmostly. "))
    assert store.sessions.get("s1").last_message_preview == "Sunny, mostly."  # type: ignore[union-attr]


def test_a_message_taken_off_the_path_is_kept_but_no_longer_read_as_the_conversation(store: Store) -> None:
    new_session(store)
    store.messages.add(msg("m1", content="question"))
    partial = store.messages.add(msg("m2", type=MessageType.AI_RESPONSE, content="half an ans", incomplete=True,
                                     pinned=True))
    store.messages.add(msg("m3", type=MessageType.AI_RESPONSE, content="a whole answer"))
    off = store.messages.update(replace(partial, active=False))
    assert not off.active and off.seq == 2
    assert [m.id for m in store.messages.since("s1", 0)] == ["m1", "m3"]
    assert [m.id for m in store.messages.snapshot("s1")] == ["m1", "m3"]
    assert store.messages.pinned("s1") == []
    assert [(m.id, m.active) for m in store.messages.snapshot("s1", include_inactive=True)] == [
        ("m1", True), ("m2", False), ("m3", True)]
    assert store.messages.get("m2") == off
    assert store.messages.count("s1") == 3  # every stored message is counted


def test_updating_the_newest_message_updates_the_preview_and_an_older_one_does_not(store: Store) -> None:
    new_session(store)
    first = store.messages.add(msg("m1", content="the question"))
    draft = store.messages.add(msg("m2", type=MessageType.AI_RESPONSE, content="Part", incomplete=True))
    store.messages.update(replace(draft, content="Part of a longer answer", incomplete=False))
    assert store.sessions.get("s1").last_message_preview == "Part of a longer answer"  # type: ignore[union-attr]
    store.messages.update(replace(first, content="an edited question"))
    session = store.sessions.get("s1")
    assert session is not None and session.last_message_preview == "Part of a longer answer"
    assert session.message_count == 2


@pytest.mark.parametrize(("kind", "content"), [
    (MessageType.TOOL_CALL, "calling a tool"), (MessageType.TOOL_RESULT, "tool output"),
    (MessageType.ERROR, "Rate limited"), (MessageType.USER, "  \n "), (MessageType.AI_RESPONSE, ""),
])
def test_the_preview_skips_tool_error_and_blank_messages(store: Store, kind: MessageType, content: str) -> None:
    new_session(store)
    store.messages.add(msg("m1", content="the question"))
    store.messages.add(msg("m2", type=kind, content=content))
    session = store.sessions.get("s1")
    assert session is not None and (session.last_message_preview, session.message_count) == ("the question", 2)


def test_the_preview_keeps_the_first_120_characters(store: Store) -> None:
    new_session(store)
    words = " ".join(f"word{i:03d}" for i in range(40))
    store.messages.add(msg("m1", content=words))
    assert store.sessions.get("s1").last_message_preview == words[:120]  # type: ignore[union-attr]


def test_add_moves_the_session_updated_at_forward_but_never_back(store: Store) -> None:
    new_session(store, minutes=30)
    store.messages.add(msg("m1", created_at=T0))
    assert store.sessions.get("s1").updated_at == T0 + timedelta(minutes=30)  # type: ignore[union-attr]
    later = T0 + timedelta(hours=2)
    store.messages.add(msg("m2", type=MessageType.TOOL_RESULT, created_at=later))
    assert store.sessions.get("s1").updated_at == later  # type: ignore[union-attr]


def test_since_and_pinned_select_by_seq_and_flag(store: Store) -> None:
    new_session(store)
    for i in range(5):
        store.messages.add(msg(f"m{i}", pinned=i == 1))
    assert [m.seq for m in store.messages.since("s1", 3)] == [3, 4, 5]
    assert [m.seq for m in store.messages.since("s1", 0)] == [1, 2, 3, 4, 5]
    assert store.messages.since("s1", 6) == []
    assert [m.id for m in store.messages.pinned("s1")] == ["m1"]


def test_update_changes_what_the_caller_owns_but_never_id_session_seq_or_time(store: Store) -> None:
    new_session(store)
    new_session(store, "zz")
    stored = store.messages.add(msg("m1", content="partial", incomplete=True))
    edited = replace(stored, content="done", incomplete=False, pinned=True, output_tokens=12, seq=42,
                     session_id="zz", created_at=T0 + timedelta(days=1))
    updated = store.messages.update(edited)
    assert updated == replace(edited, seq=1, session_id="s1", created_at=T0)
    assert store.messages.get("m1") == updated
    assert store.messages.snapshot("zz") == []
    assert store.sessions.get("s1").message_count == 1  # type: ignore[union-attr]


def test_update_of_a_missing_message_is_not_found(store: Store) -> None:
    new_session(store)
    with pytest.raises(NotFound):
        store.messages.update(msg("ghost"))
    assert store.messages.snapshot("s1") == []


def test_the_full_output_is_kept_beside_the_truncated_result(store: Store) -> None:
    new_session(store)
    full = "line of output\n" * 10_000
    store.messages.add(msg("t1", type=MessageType.TOOL_RESULT, tool_output=full[:100]), full_output=full)
    store.messages.add(msg("t2", type=MessageType.TOOL_RESULT, tool_output="short"))
    assert store.messages.full_output("t1") == full
    assert store.messages.full_output("t2") is None
    assert store.messages.full_output("unknown") is None
