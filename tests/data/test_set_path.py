"""Moving a session's active path in SQL only where it forks: checked against the path walked in Python from the
parent links, over random trees and random checkouts (deep forks, an earlier message of the path, another root,
an empty path)."""

from __future__ import annotations

import random

import pytest

from data.storage import Storage
from domain.errors import NotFound
from domain.models import MessageType
from tests.data.conftest import msg, new_session


def walk(parents: dict[str, str | None], leaf: str) -> list[str]:
    path: list[str] = []
    node: str | None = leaf
    while node is not None:
        path.append(node)
        node = parents[node]
    return path[::-1]


def active_path(storage: Storage) -> list[str]:
    return [m.id for m in storage.messages.snapshot("s1")]


@pytest.mark.parametrize("seed", range(6))
def test_random_checkouts_leave_exactly_the_walked_path_active(storage: Storage, seed: int) -> None:
    rng = random.Random(seed)
    new_session(storage)
    parents: dict[str, str | None] = {}
    for i in range(120):  # a tree: mostly children of recent messages, some of old ones, a few new roots
        pick = rng.random()
        parent = None if not parents or pick < 0.03 else rng.choice(list(parents)[-5:] if pick < 0.8 else list(parents))
        mid = f"m{i}"
        kind = MessageType.USER if i % 2 == 0 else MessageType.AI_RESPONSE
        # as the app adds them: a reply or an edit follows the leaf (no parent given); a message given its parent is
        # stored off the path (an import), then the path is moved to it
        storage.messages.add(msg(mid, type=kind, parent_id=parent, active=False) if parent else msg(mid, type=kind))
        if parent is None and parents:  # a root given no parent follows the current leaf: read what was stored
            stored = storage.messages.get(mid)
            assert stored is not None
            parent = stored.parent_id
        parents[mid] = parent
        if rng.random() < 0.3:
            leaf = rng.choice(list(parents))
            returned = storage.messages.set_path("s1", leaf)
            expected = walk(parents, leaf)
            assert list(returned) == expected and active_path(storage) == expected
    storage.messages.set_path("s1", None)
    assert active_path(storage) == []
    leaf = rng.choice(list(parents))
    assert list(storage.messages.set_path("s1", leaf)) == walk(parents, leaf) == active_path(storage)


def test_active_messages_that_are_not_one_path_are_put_right_by_the_next_checkout(storage: Storage) -> None:
    new_session(storage)
    for i in range(4):
        storage.messages.add(msg(f"m{i}", type=MessageType.USER if i % 2 == 0 else MessageType.AI_RESPONSE))
    # given parents while on the path (the app never does; a hand-edited store might): two active branches, one of
    # them older than the newest message of the other
    storage.messages.add(msg("x", type=MessageType.AI_RESPONSE, parent_id="m0"))
    storage.messages.add(msg("m4", type=MessageType.USER, parent_id="m3"))
    storage.messages.add(msg("b2", type=MessageType.USER, parent_id="m1"))
    assert set(active_path(storage)) == {"m0", "m1", "m2", "m3", "x", "m4", "b2"}
    assert list(storage.messages.set_path("s1", "m4")) == ["m0", "m1", "m2", "m3", "m4"] == active_path(storage)
    assert list(storage.messages.set_path("s1", "x")) == ["m0", "x"] == active_path(storage)
    assert list(storage.messages.set_path("s1", "b2")) == ["m0", "m1", "b2"] == active_path(storage)


def test_checking_out_an_earlier_message_of_the_path_cuts_the_path_there(storage: Storage) -> None:
    new_session(storage)
    for i in range(6):
        storage.messages.add(msg(f"m{i}", type=MessageType.USER if i % 2 == 0 else MessageType.AI_RESPONSE))
    assert list(storage.messages.set_path("s1", "m2")) == ["m0", "m1", "m2"] == active_path(storage)
    assert list(storage.messages.set_path("s1", "m5")) == [f"m{i}" for i in range(6)] == active_path(storage)


def test_an_unknown_leaf_or_one_of_another_session_changes_nothing(storage: Storage) -> None:
    new_session(storage)
    new_session(storage, "s2")
    storage.messages.add(msg("a"))
    storage.messages.add(msg("b", type=MessageType.AI_RESPONSE))
    storage.messages.add(msg("x", "s2"))
    for leaf in ("nope", "x"):
        with pytest.raises(NotFound):
            storage.messages.set_path("s1", leaf)
        assert active_path(storage) == ["a", "b"]
