"""The memo behind `since` and `pinned`: after every kind of change, from this store or another process, and after a
rolled-back unit of work, a read returns exactly what a store that never read before returns."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from data.db.message_memo import MessageMemo, reads_back_equal
from data.db.messages import SqlMessageRepository
from data.storage import Storage
from domain.models import Message, MessageType, ReasoningBlock, ReasoningKind, ReplyEnd, ToolStatus
from tests.data.conftest import msg, new_session


def fresh(home: Path, session_id: str = "s1") -> tuple[list[Message], list[Message]]:
    """The path since seq 0 and the pinned messages as a store without a memo reads them."""
    other = Storage.open(home)
    try:
        return list(other.messages.since(session_id, 0)), list(other.messages.pinned(session_id))
    finally:
        other.close()


def memo_reads(storage: Storage) -> tuple[list[Message], list[Message]]:
    return list(storage.messages.since("s1", 0)), list(storage.messages.pinned("s1"))


@pytest.mark.parametrize("seed", range(4))
def test_random_changes_read_the_same_through_the_memo_as_without_it(storage: Storage, seed: int) -> None:
    rng = random.Random(seed)
    home = storage.path.parent
    new_session(storage)
    ids: list[str] = []
    for step in range(60):
        action = rng.random()
        path = storage.messages.since("s1", 0)
        if action < 0.35 or not path:  # a new message after the leaf
            mid = f"m{step}"
            storage.messages.add(msg(mid, type=rng.choice((MessageType.USER, MessageType.AI_RESPONSE))))
            ids.append(mid)
        elif action < 0.55:  # a reply growing as it streams, then completed (a draft's updates)
            target = rng.choice(path)
            storage.messages.update(replace(target, content=target.content + " more", incomplete=rng.random() < 0.5))
        elif action < 0.7:  # a pin or an unpin
            target = rng.choice(path)
            storage.messages.update(replace(target, pinned=not target.pinned))
        elif action < 0.85:  # a checkout of an earlier message (an edit's fork), sometimes back to a leaf
            storage.messages.set_path("s1", rng.choice(ids))
        else:  # a branch deleted (never the whole path's root)
            target = rng.choice(path[1:] or path)
            if target is not path[0]:
                storage.messages.delete_subtree("s1", target.id)
                ids = [i for i in ids if storage.messages.get(i) is not None]
        assert memo_reads(storage) == fresh(home), f"step {step}"


def test_a_change_made_by_another_process_is_read(storage: Storage) -> None:
    home = storage.path.parent
    new_session(storage)
    first = storage.messages.add(msg("m1", content="before"))
    assert [m.content for m in storage.messages.since("s1", 0)] == ["before"]
    other = Storage.open(home)
    try:
        other.messages.update(replace(first, content="after", pinned=True))
    finally:
        other.close()
    assert [m.content for m in storage.messages.since("s1", 0)] == ["after"]
    assert [m.id for m in storage.messages.pinned("s1")] == ["m1"]


def test_a_read_inside_a_rolled_back_unit_of_work_is_not_kept(storage: Storage) -> None:
    home = storage.path.parent
    new_session(storage)
    first = storage.messages.add(msg("m1", content="original"))
    storage.messages.since("s1", 0)
    with pytest.raises(RuntimeError), storage.unit_of_work.atomic():
        storage.messages.update(replace(first, content="rolled back"))
        assert [m.content for m in storage.messages.since("s1", 0)] == ["rolled back"]  # its own write, unseen yet
        raise RuntimeError("the unit of work fails")
    assert [m.content for m in fresh(home)[0]] == ["original"]
    # the next committed change reaches the revision the rolled-back one had: its text must be read, not the kept one
    storage.messages.update(replace(first, content="committed"))
    assert [m.content for m in storage.messages.since("s1", 0)] == ["committed"]


def test_a_message_deleted_and_written_again_under_its_id_is_read_anew(storage: Storage) -> None:
    new_session(storage)
    storage.messages.add(msg("m0", content="kept"))
    storage.messages.add(msg("m1", content="first text"))
    assert [m.content for m in storage.messages.since("s1", 0)] == ["kept", "first text"]
    storage.messages.delete_subtree("s1", "m1")
    again = storage.messages.add(msg("m1", content="other text"))  # an import of an edited export, say
    assert again.seq == 2  # the same id at the same place: only its revision can tell it apart
    assert [m.content for m in storage.messages.since("s1", 0)] == ["kept", "other text"]


def test_reads_beyond_the_memos_size_are_read_whole_and_still_right(storage: Storage) -> None:
    from data.db.message_memo import MessageMemo

    storage.messages._memo = MessageMemo(max_messages=3)  # a path longer than everything the memo may keep
    new_session(storage)
    for i in range(5):
        storage.messages.add(msg(f"m{i}", content=f"text {i}"))
    assert [m.content for m in storage.messages.since("s1", 0)] == [f"text {i}" for i in range(5)]
    target = storage.messages.since("s1", 0)[2]
    storage.messages.update(replace(target, content="changed"))
    assert memo_reads(storage) == fresh(storage.path.parent)
    assert [m.content for m in storage.messages.since("s1", 4)] == ["text 3", "text 4"]  # small enough: kept
    assert [m.content for m in storage.messages.since("s1", 4)] == ["text 3", "text 4"]


def test_a_message_this_store_wrote_is_read_back_as_the_same_object(storage: Storage) -> None:
    """What the turn goes on with after storing a message (add's and update's result) is what the next read hands
    out, equal to what another store reads, and the same object: its estimate and its place in a request are known.
    (The one-command CLI's store, which reads each path once, keeps no memo.)"""
    home = storage.path.parent
    new_session(storage)
    storage.messages.since("s1", 0)  # a read kept before the writes: the new rows are fetched by id
    user = storage.messages.add(msg("m1", content="question"))
    reply = storage.messages.update(replace(storage.messages.add(msg("m2", type=MessageType.AI_RESPONSE)),
                                            content="answer"))
    path = list(storage.messages.since("s1", 0))
    assert path == fresh(home)[0]
    assert (path[0] is user and path[1] is reply) == isinstance(storage.messages, SqlMessageRepository)


def test_a_row_changed_after_this_store_wrote_it_is_read_as_it_is_now(storage: Storage) -> None:
    """Another process changed the message after this store wrote it: the read hands out the row as it is."""
    home = storage.path.parent
    new_session(storage)
    storage.messages.since("s1", 0)
    first = storage.messages.add(msg("m1", content="before"))
    other = Storage.open(home)
    try:
        other.messages.update(replace(first, content="after"))
    finally:
        other.close()
    read = list(storage.messages.since("s1", 0))
    assert [m.content for m in read] == ["after"] and read == fresh(home)[0]


def test_a_grown_path_hands_out_the_objects_read_before_and_reads_only_what_follows(storage: Storage) -> None:
    home = storage.path.parent
    new_session(storage)
    storage.messages.add(msg("m1", content="one"))
    storage.messages.add(msg("m2", content="two"))
    first = list(storage.messages.since("s1", 0))
    other = Storage.open(home)
    try:  # another process adds a message and changes none of the earlier ones
        other.messages.add(msg("m3", content="three"))
    finally:
        other.close()
    second = list(storage.messages.since("s1", 0))
    assert second == fresh(home)[0] and [m.content for m in second] == ["one", "two", "three"]
    memo = isinstance(storage.messages, SqlMessageRepository)  # the lite store reads without a memo
    assert not memo or (second[0] is first[0] and second[1] is first[1])
    other = Storage.open(home)
    try:  # then changes the first: the path no longer begins with the rows read before
        other.messages.update(replace(second[0], content="one, edited"))
    finally:
        other.close()
    third = list(storage.messages.since("s1", 0))
    assert third == fresh(home)[0] and third[0].content == "one, edited" and (not memo or third[1] is first[1])


def fetched_ids(storage: Storage) -> list[str]:
    """Records the ids the full store's memo fetches whole from now on (the lite store keeps no memo: none)."""
    seen: list[str] = []
    messages = storage.messages
    if isinstance(messages, SqlMessageRepository):
        memo: MessageMemo = messages._memo
        fetch = memo._fetch

        def recording(con: object, ids: list[str]) -> object:
            seen.extend(ids)
            return fetch(con, ids)  # type: ignore[arg-type]

        memo._fetch = recording  # type: ignore[method-assign,assignment]
    return seen


def plain_messages() -> list[Message]:
    """A message of every type with every plain field set (what reads_back_equal accepts)."""
    return [
        msg("p1", content="question ünï 中文 \x00 end", pinned=True, has_image=True),
        msg("p2", type=MessageType.AI_RESPONSE, content="answer", thinking_content="thought", model_id="m",
            provider_id="p", input_tokens=1200, output_tokens=34, reasoning_tokens=12, thinking_ms=1500,
            incomplete=True, end_reason=ReplyEnd.STOPPED),
        msg("p3", type=MessageType.TOOL_CALL, content="", tool_call_id="c1", tool_name="http_request",
            tool_input='{"url": "https://example.org"}', model_id="m", provider_id="p"),
        msg("p4", type=MessageType.TOOL_RESULT, content="", tool_call_id="c1", tool_name="http_request",
            tool_output="x" * 500, tool_status=ToolStatus.ERROR, tool_output_original_chars=90_000),
    ]


def test_messages_this_store_inserted_are_taken_as_written_without_fetching_their_rows(storage: Storage) -> None:
    """A turn's new messages (the user's, the reply) are not read back whole on the next turn: the insert returned
    their revision, and the keys read shows them unchanged. Each kind of message is equal to what a store that never
    read before reads, so handing out the written object changes nothing."""
    home = storage.path.parent
    new_session(storage)
    storage.messages.add(msg("m0", content="first"))
    storage.messages.since("s1", 0)  # kept: the next reads look up only what follows
    fetched = fetched_ids(storage)
    written = [storage.messages.add(m) for m in plain_messages()]
    assert all(reads_back_equal(m) for m in written)
    path = list(storage.messages.since("s1", 0))
    assert path == fresh(home)[0] and path[1:] == written
    if isinstance(storage.messages, SqlMessageRepository):
        assert fetched == [] and all(a is b for a, b in zip(path[1:], written, strict=True))


def test_an_inserted_message_whose_fields_a_read_parses_anew_is_fetched(storage: Storage) -> None:
    """Reasoning blocks (and attachments, web records) come back from JSON as new objects; a time in another zone
    comes back in UTC: such a message is fetched and compared, as before (equal: the object written is handed out)."""
    home = storage.path.parent
    new_session(storage)
    storage.messages.since("s1", 0)
    fetched = fetched_ids(storage)
    thinking = msg("r1", type=MessageType.AI_RESPONSE, content="answer",
                   reasoning=(ReasoningBlock(ReasoningKind.THINKING, "hmm", signature="sig"),))
    zoned = msg("r2", created_at=datetime(2026, 1, 1, 13, 0, tzinfo=timezone(timedelta(hours=1))))
    assert not reads_back_equal(thinking) and not reads_back_equal(zoned)
    storage.messages.add(thinking)
    storage.messages.add(zoned)
    path = list(storage.messages.since("s1", 0))
    assert path == fresh(home)[0]
    if isinstance(storage.messages, SqlMessageRepository):
        assert fetched == ["r1", "r2"]


def test_an_inserted_message_changed_since_is_fetched_not_taken_as_written(storage: Storage) -> None:
    """This store inserts, then another process changes the row: the change moved its revision, so the read fetches
    the row instead of handing out the object written."""
    home = storage.path.parent
    new_session(storage)
    storage.messages.since("s1", 0)
    fetched = fetched_ids(storage)
    first = storage.messages.add(msg("m1", content="mine"))
    other = Storage.open(home)
    try:
        other.messages.update(replace(first, content="theirs", pinned=True))
    finally:
        other.close()
    path = list(storage.messages.since("s1", 0))
    assert [(m.content, m.pinned) for m in path] == [("theirs", True)] and path == fresh(home)[0]
    if isinstance(storage.messages, SqlMessageRepository):
        assert fetched == ["m1"]
