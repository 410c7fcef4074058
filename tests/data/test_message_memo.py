"""The memo behind `since` and `pinned`: after every kind of change, from this store or another process, and after a
rolled-back unit of work, a read returns exactly what a store that never read before returns."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from data.db.messages import SqlMessageRepository
from data.storage import Storage
from domain.models import Message, MessageType
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
