"""Merge rules between two stores synced in-process through a folder: the last writer wins per field, a change made
here since the last sync is never overwritten, a deleted conversation that got a newer message comes back, memories
and agents travel, branches converge on one active path."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from data.sync.folder import FolderRemote
from domain.models import Agent, Memory
from tests.sync.replicas import Store, until_quiet


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[Store, Store, FolderRemote]]:
    a, b = Store(tmp_path / "a"), Store(tmp_path / "b")
    remote = FolderRemote(tmp_path / "remote")
    a.conversation("s1", "First title", ["q1", "a1"])
    until_quiet([a, b], remote)
    yield a, b, remote
    a.close()
    b.close()


def _title(store: Store, sid: str = "s1") -> str:
    session = store.storage.sessions.get(sid)
    assert session is not None
    return session.title


def test_the_later_of_two_renames_wins_on_both_devices(pair: tuple[Store, Store, FolderRemote]) -> None:
    a, b, remote = pair
    a.storage.sessions.update_fields("s1", title="Renamed on A")
    a.sync(remote)
    b.storage.sessions.update_fields("s1", title="Renamed on B, later")
    until_quiet([a, b], remote)
    assert _title(a) == _title(b) == "Renamed on B, later"


def test_a_change_not_yet_sent_is_not_overwritten_by_an_older_one(pair: tuple[Store, Store, FolderRemote]) -> None:
    a, b, remote = pair
    a.storage.sessions.update_fields("s1", title="A, sent first")
    a.sync(remote)
    b.storage.sessions.update_fields("s1", title="B, edited offline")
    report = b.sync(remote)  # receives A's rename while its own waits to be sent
    assert report.received == 1 and _title(b) == "B, edited offline"
    until_quiet([a, b], remote)
    assert _title(a) == "B, edited offline"


def test_a_conversation_trashed_on_one_device_comes_back_for_a_newer_message(
        pair: tuple[Store, Store, FolderRemote]) -> None:
    a, b, remote = pair
    a.storage.sessions.delete("s1", datetime.now(UTC))
    a.sync(remote)
    b.talk("s1", ["one more question", "one more answer"])
    reports = [b.sync(remote), a.sync(remote)]
    assert any("restored" in n for r in reports for n in r.notices)
    until_quiet([a, b], remote)
    for store in (a, b):
        session = store.storage.sessions.get("s1")
        assert session is not None and session.deleted_at is None
    assert a.state() == b.state()


def test_memories_and_agents_travel(pair: tuple[Store, Store, FolderRemote]) -> None:
    a, b, remote = pair
    now = datetime.now(UTC)
    a.storage.agents.add(Agent("agent-x", "Travel planner", system_prompt="Plan trips."))
    a.storage.memories.add(Memory("mem-1", "The user prefers trains.", now, agent_id="agent-x"))
    until_quiet([a, b], remote)
    agent = b.storage.agents.get("agent-x")
    assert agent is not None and agent.system_prompt == "Plan trips."
    assert [m.content for m in b.storage.memories.list("agent-x")] == ["The user prefers trains."]


def test_branches_made_on_both_devices_converge_on_one_active_path(pair: tuple[Store, Store, FolderRemote]) -> None:
    a, b, remote = pair
    from domain.models import Message, MessageType

    a.storage.messages.add(Message("a-retry", "s1", MessageType.AI_RESPONSE, "A's other answer", parent_id="s1-q1"))
    a.storage.messages.set_path("s1", "a-retry")
    b.storage.messages.add(Message("b-next", "s1", MessageType.USER, "B goes on", parent_id="s1-a1"))
    until_quiet([a, b], remote)
    assert a.state() == b.state()
    order = a.state()["order"]
    assert [(row[1], row[2]) for row in order] == [(1, "s1-q1"), (2, "s1-a1"), (3, "a-retry"), (4, "b-next")]
    active = [row[2] for row in order if row[3]]
    assert active in (["s1-q1", "a-retry"], ["s1-q1", "s1-a1", "b-next"])


def test_a_conversation_purged_on_one_device_takes_its_attachment_files_on_the_other(
        pair: tuple[Store, Store, FolderRemote]) -> None:
    a, b, remote = pair
    a.conversation("s9", "With a file", ["look at this", "seen"], attach=b"only s9 has these bytes")
    until_quiet([a, b], remote)
    sha = b.storage.attachment_files.put(b"only s9 has these bytes")
    b.storage.sessions.purge("s9")
    until_quiet([a, b], remote)
    assert a.storage.sessions.get("s9") is None
    assert not a.storage.attachment_files.exists(sha)


def test_sync_set_up_again_does_not_send_old_values_over_newer_ones(
        pair: tuple[Store, Store, FolderRemote], tmp_path: Path) -> None:
    from data.sync.config import forget

    a, b, remote = pair
    b.storage.sessions.update_fields("s1", title="Renamed on B while A was away")
    b.sync(remote)
    forget(a.storage.unit_of_work)  # `sync off`, then set up again with the same remote
    until_quiet([a, b], remote)
    assert _title(a) == _title(b) == "Renamed on B while A was away"


def test_a_file_still_arriving_is_skipped_then_applied_once_whole(pair: tuple[Store, Store, FolderRemote]) -> None:
    """A folder synced by another program may show a change file half-copied: it waits, and the files after it too."""
    a, b, remote = pair
    a.storage.sessions.update_fields("s1", title="First change")
    a.sync(remote)
    a.storage.sessions.update_fields("s1", title="Second change")
    a.sync(remote)
    first = sorted(remote.list(f"devices/{a.replica.device}/"))[-2]
    whole = (remote.root / first).read_bytes()
    (remote.root / first).write_bytes(whole[: len(whole) // 2])
    report = b.sync(remote)
    assert report.skipped == (first,) and report.received == 0 and _title(b) == "First title"
    (remote.root / first).write_bytes(whole)
    assert b.sync(remote).received == 2 and _title(b) == "Second change"


def test_two_changes_of_one_field_received_together_end_on_the_later(
        pair: tuple[Store, Store, FolderRemote]) -> None:
    a, b, remote = pair
    for title in ("One", "Two", "Three"):
        a.storage.sessions.update_fields("s1", title=title)
        a.sync(remote)
    assert b.sync(remote).received == 3
    assert _title(b) == "Three"
