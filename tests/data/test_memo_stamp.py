"""The message memo's stamp: a read again with nothing changed on any connection reads no keys, a turn's own
accounted writes keep it so, and every other change (another process, an unaccounted write on the same connection,
a rolled-back unit of work) is read as a store without a memo reads it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import event

from data.db.message_sql import PINNED_READ, SINCE_READ
from data.db.messages import SqlMessageRepository
from data.storage import Storage
from domain.models import MessageType, Usage
from tests.data.conftest import head_home, msg, new_session
from tests.data.test_message_memo import fresh, memo_reads

KEYS = SINCE_READ.keys.split(" WHERE ")[0]  # the statements as traced have their values in place of parameters
assert KEYS == PINNED_READ.keys.split(" WHERE ")[0] == "SELECT id, seq, rev FROM messages"


@pytest.fixture
def full(tmp_path: Path, head_database: Path) -> Iterator[Storage]:
    """The full store only: the lite one keeps no memo."""
    storage = Storage.open(head_home(tmp_path, head_database))
    assert isinstance(storage.messages, SqlMessageRepository)
    yield storage
    storage.close()


def statements(storage: Storage) -> list[str]:
    """Every statement the store's connections run from now on (connections already open included)."""
    seen: list[str] = []
    engine = storage._db.engine
    storage._db.release_parked()
    engine.pool.dispose()  # the next connections are new ones, each traced

    @event.listens_for(engine, "connect")
    def _trace(dbapi_connection: object, _record: object) -> None:
        dbapi_connection.set_trace_callback(seen.append)  # type: ignore[attr-defined]

    return seen


def keys_read(seen: list[str]) -> int:
    return sum(1 for s in seen if s.startswith(KEYS + " WHERE "))


def a_turn(storage: Storage, n: int) -> None:
    """What a turn writes: the user's message alone, then the reply, a tool call, the usage and a calibration
    ratio in one unit of work."""
    storage.messages.add(msg(f"u{n}", content=f"question {n}"))
    with storage.unit_of_work.atomic():
        storage.messages.add(msg(f"r{n}", type=MessageType.AI_RESPONSE, content=f"answer {n}", model_id="m"))
        storage.messages.add(msg(f"c{n}", type=MessageType.TOOL_CALL, content="", tool_call_id=f"t{n}",
                                 tool_name="http_request", tool_input="{}"))
        storage.sessions.add_usage("s1", Usage(input_tokens=100, output_tokens=10))
        storage.calibration.put("anthropic/m", 1.05)


def test_reads_with_nothing_changed_and_after_a_turns_own_writes_read_no_keys(full: Storage) -> None:
    home = full.path.parent
    new_session(full)
    full.messages.add(msg("p", content="pinned", pinned=True))
    seen = statements(full)
    memo_reads(full)
    assert keys_read(seen) == 0  # the first reads select whole rows
    seen.clear()
    memo_reads(full)
    assert keys_read(seen) == 0 and memo_reads(full) == fresh(home)
    for n in range(3):
        a_turn(full, n)
        seen.clear()
        path, pinned = memo_reads(full)
        assert keys_read(seen) == 0, f"turn {n}"
        assert (path, pinned) == fresh(home)
    assert [m.id for m in path] == ["p", "u0", "r0", "c0", "u1", "r1", "c1", "u2", "r2", "c2"]


def test_the_messages_a_turn_stored_are_handed_out_as_the_same_objects(full: Storage) -> None:
    new_session(full)
    full.messages.since("s1", 0)
    user = full.messages.add(msg("u", content="question"))
    with full.unit_of_work.atomic():
        reply = full.messages.add(msg("r", type=MessageType.AI_RESPONSE, content="answer"))
        full.sessions.add_usage("s1", Usage(input_tokens=5, output_tokens=1))
    path = full.messages.since("s1", 0)
    assert path[0] is user and path[1] is reply


def test_a_commit_of_another_process_after_this_ones_own_is_read(full: Storage) -> None:
    home = full.path.parent
    new_session(full)
    memo_reads(full)
    a_turn(full, 0)  # the stamp carried forward by this process's own writes...
    other = Storage.open(home)
    try:  # ...then another process changes what the stamp covers, without a new message: only its commit tells
        first = other.messages.since("s1", 0)[0]
        other.messages.update(replace(first, content="edited elsewhere", pinned=True))
    finally:
        other.close()
    path, pinned = memo_reads(full)
    assert path[0].content == "edited elsewhere" and [m.id for m in pinned] == ["u0"]
    assert (path, pinned) == fresh(home)


def test_an_unaccounted_write_on_the_same_connection_is_read(full: Storage) -> None:
    """A move of the active path raises no revision: the keys alone would miss nothing, but the stamp must not
    hold it back either (the connection's own count of changes moved)."""
    home = full.path.parent
    new_session(full)
    full.messages.add(msg("m1", content="one"))
    full.messages.add(msg("m2", content="two"))
    memo_reads(full)
    with full._db.write_sql() as con:  # plain SQL, accounted nowhere: m2 leaves the path
        con.execute("UPDATE messages SET active = 0 WHERE id = 'm2'")
    path, _ = memo_reads(full)
    assert [m.id for m in path] == ["m1"] and (path, []) == fresh(home)


def test_a_unit_of_work_with_an_unaccounted_change_carries_no_stamp(full: Storage) -> None:
    home = full.path.parent
    new_session(full)
    first = full.messages.add(msg("m1", content="one"))
    memo_reads(full)
    with full.unit_of_work.atomic():
        full.messages.add(msg("m2", content="two"))
        full.messages.update(replace(first, content="one, edited"))  # a write the journal does not account for
    path, _ = memo_reads(full)
    assert [m.content for m in path] == ["one, edited", "two"] and path == fresh(home)[0]


def test_a_rolled_back_insert_is_not_taken_in(full: Storage) -> None:
    home = full.path.parent
    new_session(full)
    full.messages.add(msg("m1", content="one"))
    memo_reads(full)
    with pytest.raises(RuntimeError), full.unit_of_work.atomic():
        full.messages.add(msg("m2", content="rolled back"))
        full.sessions.add_usage("s1", Usage(input_tokens=1))
        raise RuntimeError("the unit of work fails")
    path, _ = memo_reads(full)
    assert [m.id for m in path] == ["m1"] and path == fresh(home)[0]
    full.messages.add(msg("m3", content="three"))
    assert [m.id for m in full.messages.since("s1", 0)] == ["m1", "m3"] == [m.id for m in fresh(home)[0]]


def test_a_message_that_reads_back_unequal_is_fetched(full: Storage) -> None:
    """A message with attachments or reasoning is not taken in from the write: its row is read."""
    from domain.models import ReasoningBlock, ReasoningKind

    home = full.path.parent
    new_session(full)
    seen = statements(full)
    memo_reads(full)
    full.messages.add(msg("r", type=MessageType.AI_RESPONSE, content="answer",
                          reasoning=(ReasoningBlock(ReasoningKind.THINKING, "thought", signature="sig"),)))
    seen.clear()
    path, _ = memo_reads(full)
    assert keys_read(seen) == 1  # the path's (the pinned messages' read still stands: the reply is not pinned)
    assert path == fresh(home)[0] and path[0].reasoning


def test_reads_on_other_threads_never_miss_a_committed_message(full: Storage) -> None:
    """One thread stores messages (each with the round's usage, in one unit of work) while another reads the path
    through the same store, on the pool's other connections: every read holds at least every message committed
    before it began, in order."""
    import threading

    home = full.path.parent
    new_session(full)
    full.messages.since("s1", 0)
    committed = 0
    failures: list[str] = []
    done = threading.Event()

    def write() -> None:
        nonlocal committed
        try:
            for i in range(150):
                with full.unit_of_work.atomic():
                    full.messages.add(msg(f"m{i:03d}", content=f"text {i}"))
                    full.sessions.add_usage("s1", Usage(input_tokens=1))
                committed = i + 1
        finally:
            done.set()

    def read() -> None:
        while not done.is_set():
            before = committed
            ids = [m.id for m in full.messages.since("s1", 0)]
            if len(ids) < before or ids != [f"m{i:03d}" for i in range(len(ids))]:
                failures.append(f"{before} committed, read {len(ids)}: {ids[-3:]}")

    threads = [threading.Thread(target=write), threading.Thread(target=read), threading.Thread(target=read)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures, failures[:3]
    assert committed == 150 and memo_reads(full) == fresh(home)


def test_a_turns_inserts_join_the_kept_path_without_copying_its_messages_by_key(full: Storage) -> None:
    home = full.path.parent
    new_session(full)
    for n in range(50):
        full.messages.add(msg(f"old{n}", content=f"message {n}"))
    before = full.messages.since("s1", 0)
    memo = full.messages._memo  # type: ignore[attr-defined]
    (entry,) = [e for e in memo._reads.values() if e.params == {"sid": "s1", "seq": 0}]
    a_turn(full, 0)
    (after,) = [e for e in memo._reads.values() if e.params == {"sid": "s1", "seq": 0}]
    assert after.known is entry.known and after.stamp is not None  # added to, not copied
    assert len(entry.out) == len(entry.keys) == 50  # what a read handed out before stays as it was
    assert [m.id for m in after.out][-3:] == ["u0", "r0", "c0"] and after.keys[-1][0] == "c0"
    assert full.messages.since("s1", 0) == fresh(home)[0] and len(before) == 50
