"""The pure rules of sync: the clock's order, the canonical message order, change files that read back or refuse."""

from __future__ import annotations

import pytest

from domain.sync.hlc import HybridClock, Stamp, made_at
from domain.sync.merge import Node, canonical_order, keeps_deleted, wins
from domain.sync.records import Change, ChangeFile, CorruptFile, decode, encode


def test_the_clock_never_goes_back_even_when_the_wall_clock_does() -> None:
    clock = HybridClock("dev")
    first = clock.tick(1_000)
    second = clock.tick(900)  # the wall clock stepped back
    assert first < second and second.text() > first.text()


def test_the_clock_passes_every_stamp_it_has_seen() -> None:
    clock = HybridClock("a")
    clock.observe(Stamp(5_000, 3, "b").text())
    assert clock.tick(1_000).text() > Stamp(5_000, 3, "b").text()


def test_a_change_is_stamped_when_it_was_made_unless_that_is_not_after_its_last_synced_stamp() -> None:
    synced = Stamp(1_000, 3, "other").text()
    made = made_at(2_000, "me", synced)
    assert made == Stamp(2_000, 0, "me")
    assert made_at(1_000, "me", synced) is None  # not after it: stamped when sent instead
    assert made_at(None, "me", synced) is None
    clock = HybridClock("me", Stamp(1_500, 0, "me"))
    assert clock.issue(made, now_ms=5_000) == made and clock.last == made  # the clock moves past it
    assert clock.issue(None, now_ms=5_000) == Stamp(5_000, 0, "me")


def test_stamp_text_sorts_like_the_stamps() -> None:
    stamps = [Stamp(10, 2, "b"), Stamp(9, 99, "z"), Stamp(10, 2, "a"), Stamp(1_000_000, 0, "a")]
    assert sorted(s.text() for s in stamps) == [s.text() for s in sorted(stamps)]
    assert Stamp.parse(stamps[0].text()) == stamps[0]


def test_last_writer_wins_and_a_never_synced_field_takes_any_value() -> None:
    assert wins("0000000000002.00000.a", "0000000000001.00000.b")
    assert not wins("0000000000001.00000.a", "0000000000001.00000.b")
    assert wins("0000000000001.00000.a", None)


def test_the_canonical_order_puts_parents_first_then_time_then_id() -> None:
    nodes = [Node("reply-b", "q", 30), Node("q", None, 10), Node("reply-a", "q", 20), Node("late-root", None, 5),
             Node("child", "reply-b", 1)]
    assert canonical_order(nodes) == ["late-root", "q", "reply-a", "reply-b", "child"]
    assert canonical_order(list(reversed(nodes))) == canonical_order(nodes)


def test_a_message_whose_parent_is_missing_counts_as_a_root() -> None:
    assert canonical_order([Node("orphan", "gone", 1)]) == ["orphan"]


def test_a_deleted_conversation_is_kept_only_for_a_message_after_the_delete() -> None:
    assert keeps_deleted("0000000000005.00000.a", "0000000000006.00000.b")
    assert not keeps_deleted("0000000000005.00000.a", "0000000000004.00000.b")
    assert not keeps_deleted("0000000000005.00000.a", None)


def test_a_change_file_reads_back_and_a_torn_one_is_refused() -> None:
    file = ChangeFile("dev", 3, (Change("session", "s1", "title", "Ünïcode", "0000000000001.00000.dev"),),
                      blobs=("ab" * 32,))
    data = encode(file)
    assert decode(data) == file
    for torn in (data[:-1], data[: len(data) // 2], b"", b"\xff\xfe", b'{"format": 2}\n'):
        with pytest.raises(CorruptFile):
            decode(torn)
