"""MessageRepository contract for the tree: parents, the active path, switching it, deleting a branch."""

from __future__ import annotations

import pytest

from domain.errors import NotFound
from domain.models import Message, MessageType
from tests.contracts.conftest import Store, msg, new_session


def _reply(mid: str, **fields: object) -> Message:
    return msg(mid, type=MessageType.AI_RESPONSE, content=f"reply {mid}", **fields)


def _linear(store: Store) -> None:
    new_session(store)
    store.messages.add(msg("u1", content="first question"))
    store.messages.add(_reply("a1"))
    store.messages.add(msg("u2", content="second question"))
    store.messages.add(_reply("a2"))


def test_each_add_follows_the_newest_message_of_the_active_path(store: Store) -> None:
    _linear(store)
    assert [(m.id, m.parent_id) for m in store.messages.snapshot("s1")] == [
        ("u1", None), ("a1", "u1"), ("u2", "a1"), ("a2", "u2")]
    assert store.messages.get("a2").parent_id == "u2"  # type: ignore[union-attr]


def test_set_path_moves_the_conversation_to_another_branch_and_keeps_every_message(store: Store) -> None:
    _linear(store)
    assert store.messages.set_path("s1", "a1") == ["u1", "a1"]
    edited = store.messages.add(msg("u2b", content="second question, fixed"))
    assert edited.parent_id == "a1" and edited.seq == 5
    assert [m.id for m in store.messages.snapshot("s1")] == ["u1", "a1", "u2b"]
    assert [m.id for m in store.messages.since("s1", 3)] == ["u2b"]
    assert [(m.id, m.active) for m in store.messages.snapshot("s1", include_inactive=True)] == [
        ("u1", True), ("a1", True), ("u2", False), ("a2", False), ("u2b", True)]
    assert store.messages.count("s1") == 5
    assert store.messages.set_path("s1", "a2") == ["u1", "a1", "u2", "a2"]
    assert [m.id for m in store.messages.snapshot("s1")] == ["u1", "a1", "u2", "a2"]


def test_an_empty_path_lets_a_new_root_start(store: Store) -> None:
    _linear(store)
    assert store.messages.set_path("s1", None) == []
    assert store.messages.snapshot("s1") == []
    root = store.messages.add(msg("u1b", content="another first question"))
    assert root.parent_id is None
    assert [m.id for m in store.messages.snapshot("s1")] == ["u1b"]


def test_pinned_follows_the_active_path(store: Store) -> None:
    _linear(store)
    store.messages.set_path("s1", "a1")
    store.messages.add(msg("u2b", content="pinned on a branch", pinned=True))
    assert [m.id for m in store.messages.pinned("s1")] == ["u2b"]
    store.messages.set_path("s1", "a2")
    assert store.messages.pinned("s1") == []


def test_tree_lists_every_message_with_its_parent_and_whether_it_is_on_the_path(store: Store) -> None:
    _linear(store)
    store.messages.set_path("s1", "u1")
    store.messages.add(_reply("a1b"))
    nodes = store.messages.tree("s1")
    assert [(n.id, n.parent_id, n.seq, n.active) for n in nodes] == [
        ("u1", None, 1, True), ("a1", "u1", 2, False), ("u2", "a1", 3, False), ("a2", "u2", 4, False),
        ("a1b", "u1", 5, True)]
    assert nodes[0].type is MessageType.USER and nodes[0].preview == "first question"


def test_an_explicit_parent_must_be_a_message_of_the_same_session(store: Store) -> None:
    _linear(store)
    new_session(store, "s2")
    with pytest.raises(NotFound):
        store.messages.add(msg("x", "s2", parent_id="u1"))
    with pytest.raises(NotFound):
        store.messages.add(msg("y", parent_id="nope"))
    child = store.messages.add(msg("z", parent_id="u1", active=False))
    assert child.parent_id == "u1" and [m.id for m in store.messages.snapshot("s1")] == ["u1", "a1", "u2", "a2"]
    assert store.messages.count("s2") == 0


def test_set_path_to_an_unknown_message_is_not_found_and_changes_nothing(store: Store) -> None:
    _linear(store)
    with pytest.raises(NotFound):
        store.messages.set_path("s1", "nope")
    assert [m.id for m in store.messages.snapshot("s1")] == ["u1", "a1", "u2", "a2"]


def test_delete_subtree_removes_the_branch_below_a_message_and_its_count(store: Store) -> None:
    _linear(store)
    store.messages.set_path("s1", "a1")
    store.messages.add(msg("u2b", content="other"))
    store.messages.add(_reply("a2b"))
    assert sorted(store.messages.delete_subtree("s1", "u2")) == ["a2", "u2"]
    assert [n.id for n in store.messages.tree("s1")] == ["u1", "a1", "u2b", "a2b"]
    assert store.messages.get("a2") is None
    assert store.sessions.get("s1").message_count == store.messages.count("s1") == 4  # type: ignore[union-attr]
    with pytest.raises(NotFound):
        store.messages.delete_subtree("s1", "u2")


def test_search_finds_messages_on_every_branch(store: Store) -> None:
    _linear(store)
    store.messages.set_path("s1", "a1")
    store.messages.add(msg("u2b", content="zanzibar"))
    store.messages.set_path("s1", "a2")
    assert [h.session_id for h in store.sessions.search("zanzibar")] == ["s1"]


def _branched(store: Store) -> None:
    """u1 a1 u2 a2, and u2b (a sibling of u2) with its answer a2b, the conversation on the second branch."""
    _linear(store)
    store.messages.set_path("s1", "a1")
    store.messages.add(msg("u2b", content="other"))
    store.messages.add(_reply("a2b"))


def test_path_tail_and_count_read_only_the_active_path(store: Store) -> None:
    _branched(store)
    assert [m.id for m in store.messages.path_tail("s1", 2)] == ["u2b", "a2b"]
    assert [m.id for m in store.messages.path_tail("s1", 10)] == ["u1", "a1", "u2b", "a2b"]
    assert store.messages.path_count("s1") == 4 and store.messages.path_count("s1", before_seq=5) == 2
    assert store.messages.path_tail("nope", 5) == [] and store.messages.path_count("nope") == 0
    # before a seq: the messages of the path before it, skipping the other branch's (seq 3 and 4)
    assert [m.id for m in store.messages.path_tail("s1", 2, before_seq=5)] == ["u1", "a1"]
    assert [m.id for m in store.messages.path_tail("s1", 1, before_seq=6)] == ["u2b"]
    assert store.messages.path_tail("s1", 0) == []


def test_path_head_reads_the_oldest_messages_of_the_path_after_a_seq(store: Store) -> None:
    _branched(store)  # the path: u1 a1 (seq 1, 2), u2b a2b (seq 5, 6); u2 a2 (seq 3, 4) on the other branch
    assert [m.id for m in store.messages.path_head("s1", 2, after_seq=0)] == ["u1", "a1"]
    assert [m.id for m in store.messages.path_head("s1", 2, after_seq=2)] == ["u2b", "a2b"]  # the other one skipped
    assert [m.id for m in store.messages.path_head("s1", 10, after_seq=1)] == ["a1", "u2b", "a2b"]
    assert store.messages.path_head("s1", 5, after_seq=6) == [] and store.messages.path_head("s1", 0, 0) == []
    assert store.messages.path_head("nope", 5, after_seq=0) == []


def test_children_lists_each_parents_children_oldest_first(store: Store) -> None:
    _branched(store)
    assert store.messages.children("s1", ["a1", "u1", "a2b"]) == {"a1": ("u2", "u2b"), "u1": ("a1",), "a2b": ()}
    store.messages.set_path("s1", None)
    store.messages.add(msg("root2", content="another start"))
    assert store.messages.children("s1", [None]) == {None: ("u1", "root2")}
    assert store.messages.children("s1", []) == {}


def test_newest_leaf_is_the_latest_written_leaf_below_a_message(store: Store) -> None:
    _branched(store)
    assert store.messages.newest_leaf("s1", "u1") == "a2b"
    assert store.messages.newest_leaf("s1", "u2") == "a2"
    assert store.messages.newest_leaf("s1", "a2") == "a2"
    with pytest.raises(NotFound):
        store.messages.newest_leaf("s1", "nope")
