"""MessageRepository: per-session seq, atomic adds, archived full outputs, session statistics."""

from __future__ import annotations

import zlib
from dataclasses import replace

import pytest
from sqlalchemy import text

from data.db.messages import SqlMessageRepository, compress_within
from data.storage import Storage
from domain.errors import InvalidInput, NotFound
from domain.models import MessageType
from tests.data.conftest import T0, msg, new_session


def test_add_assigns_the_next_seq_of_its_session_only(storage: Storage) -> None:
    new_session(storage, "s1")
    new_session(storage, "s2")
    seqs = [storage.messages.add(msg(f"a{i}", "s1")).seq for i in range(3)]
    other = storage.messages.add(msg("b0", "s2")).seq
    assert seqs == [1, 2, 3]
    assert other == 1


def test_messages_in_the_same_instant_keep_their_insertion_order(storage: Storage) -> None:
    new_session(storage)
    for i in range(5):
        storage.messages.add(msg(f"m{i}", created_at=T0))
    assert [m.id for m in storage.messages.snapshot("s1")] == [f"m{i}" for i in range(5)]


def test_missing_created_at_is_filled_with_now(storage: Storage) -> None:
    new_session(storage)
    stored = storage.messages.add(msg("m1", created_at=None))
    assert stored.created_at is not None
    assert storage.messages.get("m1").created_at == stored.created_at  # type: ignore[union-attr]


def test_add_to_a_missing_session_is_refused_and_stores_nothing(storage: Storage) -> None:
    with pytest.raises(NotFound):
        storage.messages.add(msg("m1", "nope"))
    assert storage.messages.get("m1") is None


def test_a_duplicate_id_is_refused_and_the_first_message_is_kept(storage: Storage) -> None:
    new_session(storage)
    storage.messages.add(msg("m1", content="first"))
    with pytest.raises(InvalidInput):
        storage.messages.add(msg("m1", content="second"))
    assert [m.content for m in storage.messages.snapshot("s1")] == ["first"]
    assert storage.sessions.get("s1").message_count == 1  # type: ignore[union-attr]


def test_a_refused_add_inside_a_unit_of_work_leaves_it_usable(storage: Storage) -> None:
    new_session(storage)
    storage.messages.add(msg("m1"))
    with storage.unit_of_work.atomic():
        with pytest.raises(InvalidInput):
            storage.messages.add(msg("m1", content="a second m1"))
        with pytest.raises(NotFound):
            storage.messages.add(msg("x1", session_id="ghost"))
        storage.messages.add(msg("m2", content="after the refusals"))
    assert [(m.id, m.content, m.seq) for m in storage.messages.snapshot("s1")] == [
        ("m1", "hello", 1), ("m2", "after the refusals", 2)]
    session = storage.sessions.get("s1")
    assert session is not None and session.message_count == 2


def test_full_output_is_kept_compressed_beside_the_truncated_result(storage: Storage) -> None:
    new_session(storage)
    full = "line of output\n" * 10_000
    storage.messages.add(msg("t1", type=MessageType.TOOL_RESULT, tool_output=full[:100]), full_output=full)
    assert storage.messages.full_output("t1") == full
    assert storage.messages.full_output("unknown") is None


@pytest.mark.full_store  # builds the SQLAlchemy repository
def test_an_oversized_archive_is_cut_to_stay_under_the_cap(storage: Storage) -> None:
    new_session(storage)
    repo = SqlMessageRepository(storage._db, archive_max_bytes=2_000)
    noisy = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(50_000))  # compresses badly
    repo.add(msg("t1", type=MessageType.TOOL_RESULT), full_output=noisy)
    kept = repo.full_output("t1")
    assert kept is not None and kept.startswith(noisy[:100])
    assert "archive cut" in kept
    with storage._db.read() as s:
        stored = s.execute(text("SELECT data FROM tool_output_archive WHERE message_id = 't1'")).scalar_one()
    assert len(stored) <= 2_000 and zlib.decompress(stored).decode("utf-8") == kept


def test_compress_within_leaves_small_text_whole() -> None:
    data, kept = compress_within("small", 1_000)
    assert zlib.decompress(data).decode() == "small" and kept == 5


def test_since_and_pinned_select_by_seq_and_flag(storage: Storage) -> None:
    new_session(storage)
    for i in range(5):
        storage.messages.add(msg(f"m{i}", pinned=i == 1))
    assert [m.seq for m in storage.messages.since("s1", 3)] == [3, 4, 5]
    assert [m.id for m in storage.messages.pinned("s1")] == ["m1"]
    assert storage.messages.count("s1") == 5


def test_update_changes_content_but_never_seq_or_session(storage: Storage) -> None:
    new_session(storage)
    stored = storage.messages.add(msg("m1", content="partial", incomplete=True))
    updated = storage.messages.update(replace(stored, content="done", incomplete=False, seq=42, session_id="zz"))
    assert (updated.content, updated.incomplete, updated.seq, updated.session_id) == ("done", False, 1, "s1")


def test_update_of_a_missing_message_is_not_found(storage: Storage) -> None:
    with pytest.raises(NotFound):
        storage.messages.update(msg("ghost"))


def test_adding_messages_updates_the_session_count_preview_and_recency(storage: Storage) -> None:
    new_session(storage, minutes=0)
    later = T0.replace(hour=13)
    storage.messages.add(msg("m1", content="What is   the\nweather?", created_at=later))
    storage.messages.add(msg("t1", type=MessageType.TOOL_RESULT, tool_output="sunny", created_at=later))
    session = storage.sessions.get("s1")
    assert session is not None
    assert session.message_count == 2
    assert session.last_message_preview == "What is the weather?"
    assert session.updated_at == later


def _plan(storage: Storage, statement: object) -> str:
    """SQLite's query plan of one of the repository's own statements (as sent, bound parameters and all)."""
    import sqlite3

    from sqlalchemy.dialects import sqlite

    compiled = statement.compile(dialect=sqlite.dialect())  # type: ignore[attr-defined]
    con = sqlite3.connect(storage.path)
    try:
        rows = con.execute("EXPLAIN QUERY PLAN " + str(compiled), list(compiled.params.values())).fetchall()
    finally:
        con.close()
    return " ".join(str(row) for row in rows)


def test_pinned_messages_are_found_through_the_partial_index(storage: Storage) -> None:
    from data.db.message_sql import PINNED as _PINNED

    # the repository's statement itself: with `pinned = ?` bound, or the active path's index chosen, SQLite read
    # the whole path of a session (2.5 ms a turn at 10,000 messages)
    assert "USING INDEX ix_messages_pinned" in _plan(storage, _PINNED.params(sid="s1"))


def test_the_active_path_is_read_through_an_index_of_the_session(storage: Storage) -> None:
    from data.db.message_sql import SINCE as _SINCE

    plan = _plan(storage, _SINCE.params(sid="s1", seq=10))
    assert "SEARCH messages USING INDEX" in plan and "seq>?" in plan


def test_reply_tokens_sum_every_branch_per_model_in_the_order_each_first_answered(storage: Storage) -> None:
    from tests.fakes import FakeMessageRepository

    new_session(storage)
    new_session(storage, "s2")
    ai = MessageType.AI_RESPONSE
    fake = FakeMessageRepository()
    for m in [
        msg("u1", input_tokens=999),  # a user message's tokens are not a reply's
        msg("a1", type=ai, model_id="sonnet", input_tokens=100, output_tokens=10),
        msg("u2"),
        msg("a2", type=ai, model_id="mini", input_tokens=200, output_tokens=0),
        msg("a3", type=ai, model_id="sonnet", input_tokens=None, output_tokens=5),
        msg("a4", type=ai, model_id="haiku"),  # reported nothing: left out
        msg("a5", type=ai, model_id=None, input_tokens=7, output_tokens=3),
        msg("x1", "s2", type=ai, model_id="sonnet", input_tokens=50_000, output_tokens=1),  # another session
    ]:
        storage.messages.add(m)
    storage.messages.set_path("s1", "a1")  # u2 and the replies after it go off the path: still paid for
    storage.messages.add(msg("a6", type=ai, model_id="mini", input_tokens=1, output_tokens=1, parent_id="u1"))
    expected = [("sonnet", 100, 15), ("mini", 201, 1), (None, 7, 3)]
    assert storage.messages.reply_tokens("s1") == expected
    for m in storage.messages.snapshot("s1", include_inactive=True):  # the same rule written out over every message
        fake.messages.setdefault("s1", []).append(m)
    assert fake.reply_tokens("s1") == expected
    assert storage.messages.reply_tokens("no-such-session") == []


def test_path_lengths_are_the_active_paths_character_counts_as_plain_integers(storage: Storage) -> None:
    new_session(storage)
    storage.messages.add(msg("m1", content="héllo ☃"))
    storage.messages.add(msg("m2", content="", type=MessageType.TOOL_CALL, tool_name="read_file",
                             tool_input='{"path": "a"}', tool_call_id="c1"))
    storage.messages.add(msg("m3", content="x" * 10, type=MessageType.TOOL_RESULT, tool_output="ok " * 5,
                             tool_call_id="c1"))
    lengths = storage.messages.path_lengths("s1", 0)
    assert [tuple(row) for row in lengths] == [(1, 7, 0, 0, 0), (2, 0, 13, 9, 0), (3, 10, 0, 0, 15)]
    assert all(type(value) is int for row in lengths for value in row)
    assert [row[0] for row in storage.messages.path_lengths("s1", 2)] == [2, 3]
