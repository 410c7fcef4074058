"""The search index's backlog (migration 0038): stored messages wait, a search or a batch indexes them, and the index
stays consistent through edits and deletes of waiting and indexed messages alike."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import migrations
from data.db.search_backlog import SearchBacklog
from data.storage import Storage
from domain.models import MessageType
from tests.data.conftest import msg, new_session


def _waiting(path: Path) -> list[int]:
    with closing(sqlite3.connect(path)) as db:
        return [r[0] for r in db.execute("SELECT id FROM messages_fts_pending ORDER BY id")]


def _indexed(path: Path, word: str) -> set[str]:
    """The ids of the messages the index itself holds for `word` (no backlog taken first)."""
    with closing(sqlite3.connect(path)) as db:
        return {r[0] for r in db.execute(
            "SELECT m.id FROM messages_fts JOIN messages m ON m.rowid = messages_fts.rowid WHERE messages_fts MATCH ?",
            (word,))}


def _consistent(path: Path) -> None:
    """FTS5's own checks (they raise on a fault): the index is sound, and, when nothing waits, it holds exactly what
    the table holds (the check against an external-content table counts a waiting message as missing)."""
    against_table = 1 if not _waiting(path) else 0
    with closing(sqlite3.connect(path)) as db:
        db.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', ?)", (against_table,))


def test_a_stored_message_waits_and_a_search_takes_the_backlog_first(storage: Storage) -> None:
    new_session(storage, "s1", "Trip")
    storage.messages.add(msg("m1", "s1", "We should visit Lisbon in spring"))
    assert len(_waiting(storage.path)) == 1 and _indexed(storage.path, "lisbon") == set()
    [hit] = storage.sessions.search("lisbon")
    assert (hit.session_id, hit.message_id) == ("s1", "m1")
    assert _waiting(storage.path) == [] and _indexed(storage.path, "lisbon") == {"m1"}
    _consistent(storage.path)


def test_edits_and_deletes_of_waiting_and_indexed_messages_keep_the_index_right(storage: Storage) -> None:
    new_session(storage, "s1", "Trip")
    indexed = storage.messages.add(msg("m1", "s1", "alpha lisbon"))
    storage.messages.add(msg("m2", "s1", "beta lisbon", parent_id="m1"))
    assert [storage.search_backlog.catch_up() for _ in range(8)] == [0] * 8  # below a batch: they wait
    storage.search_backlog.index_all()
    waiting = storage.messages.add(msg("m3", "s1", "gamma lisbon", parent_id="m2"))
    storage.messages.add(msg("m4", "s1", "delta lisbon", parent_id="m3"))
    storage.messages.update(replace(indexed, content="alpha porto"))  # indexed: out, then in again
    storage.messages.update(replace(waiting, content="gamma porto"))  # waiting: indexed later as it is then
    _consistent(storage.path)
    assert _indexed(storage.path, "porto") == {"m1"} and _indexed(storage.path, "gamma") == set()
    assert [h.message_id for h in storage.sessions.search("gamma porto")] == ["m3"]
    _consistent(storage.path)  # nothing waits now: checked against the table too
    storage.messages.add(msg("m5", "s1", "epsilon lisbon", parent_id="m4"))
    storage.sessions.purge("s1")  # every message deleted: m1 and m2 from the index, m3 and m4 from the backlog
    _consistent(storage.path)
    assert _waiting(storage.path) == [] and _indexed(storage.path, "lisbon OR porto") == set()


def test_a_turn_indexes_once_a_batch_waits_and_at_most_its_share(storage: Storage) -> None:
    new_session(storage, "s1", "Chat")
    backlog = SearchBacklog(storage._db.read_sql, storage._db.write_sql, batch=4, most=6, check_every=1)
    parent = None
    for n in range(3):
        parent = storage.messages.add(msg(f"m{n}", "s1", f"word{n} common", parent_id=parent and parent.id))
    assert backlog.catch_up() == 0 and len(_waiting(storage.path)) == 3
    for n in range(3, 9):
        parent = storage.messages.add(msg(f"m{n}", "s1", f"word{n} common", parent_id=parent and parent.id))
    assert backlog.catch_up() == 6  # nine wait: the oldest six are taken
    assert _indexed(storage.path, "common") == {f"m{n}" for n in range(6)}
    assert backlog.waiting() == 3 and backlog.catch_up() == 0
    assert backlog.index_all() == 3 and backlog.waiting() == 0
    _consistent(storage.path)


def test_a_turn_looks_at_the_backlog_every_few_turns(storage: Storage) -> None:
    new_session(storage, "s1", "Chat")
    backlog = SearchBacklog(storage._db.read_sql, storage._db.write_sql, batch=2, check_every=3)
    storage.messages.add(msg("m1", "s1", "one"))
    storage.messages.add(msg("m2", "s1", "two", parent_id="m1"))
    assert backlog.catch_up() == 2  # the process's first turn looks (a command's only turn does)
    storage.messages.add(msg("m3", "s1", "three", parent_id="m2"))
    storage.messages.add(msg("m4", "s1", "four", parent_id="m3"))
    assert [backlog.catch_up() for _ in range(3)] == [0, 0, 2]  # then every third turn


def test_a_bulk_write_leaves_nothing_waiting(storage: Storage) -> None:
    new_session(storage, "s1", "Imported")
    storage.messages.add(msg("m0", "s1", "typed before the import"))
    storage.messages.add_many([msg(f"i{n}", "s1", f"imported orchid {n}") for n in range(5)])
    assert _waiting(storage.path) == []
    assert _indexed(storage.path, "orchid") == {f"i{n}" for n in range(5)}
    assert _indexed(storage.path, "typed") == {"m0"}  # what waited went in with the batch


def test_a_failing_batch_leaves_the_messages_waiting_and_the_turn_goes_on(storage: Storage) -> None:
    new_session(storage, "s1", "Chat")
    storage.messages.add(msg("m1", "s1", "kept waiting"))

    @contextmanager
    def busy() -> Iterator[sqlite3.Connection]:
        raise sqlite3.OperationalError("database is locked")
        yield  # pragma: no cover

    backlog = SearchBacklog(storage._db.read_sql, busy, batch=1, check_every=1)
    assert backlog.catch_up() == 0 and backlog.index_all() == 0
    assert len(_waiting(storage.path)) == 1
    assert [h.message_id for h in storage.sessions.search("waiting")] == ["m1"]  # the store's own backlog works


def test_upgrade_keeps_indexed_messages_and_downgrade_indexes_the_waiting_ones(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    url = f"sqlite:///{path}"
    migrations.upgrade(url, "0037")
    with closing(sqlite3.connect(path)) as db:
        db.execute("INSERT INTO sessions (id, title, current_agent_id, message_count, is_active, created_at,"
                   " updated_at) VALUES ('s1', 'T', NULL, 0, 1, 0, 0)")
        db.execute("INSERT INTO messages (id, session_id, type, content, created_at, seq) VALUES"
                   " ('m1', 's1', 'user', 'before the upgrade', 0, 1)")
        db.commit()
    migrations.upgrade(url)
    assert _indexed(path, "upgrade") == {"m1"} and _waiting(path) == []
    with closing(sqlite3.connect(path)) as db:
        db.execute("INSERT INTO messages (id, session_id, type, content, created_at, seq) VALUES"
                   " ('m2', 's1', 'user', 'after the upgrade', 0, 2)")
        db.commit()
    assert _indexed(path, "after") == set() and len(_waiting(path)) == 1
    migrations.downgrade(url, "0037")
    assert _indexed(path, "after") == {"m2"}
    with closing(sqlite3.connect(path)) as db:  # the whole table indexed, nothing else
        db.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")
    with closing(sqlite3.connect(path)) as db:  # 0037's triggers back: a new message is indexed at once
        db.execute("INSERT INTO messages (id, session_id, type, content, created_at, seq) VALUES"
                   " ('m3', 's1', 'user', 'downgraded store', 0, 3)")
        db.commit()
    assert _indexed(path, "downgraded") == {"m3"}


_WORDS = ("amber", "birch", "cedar", "dune")
_STEP = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(_WORDS)),
    st.tuples(st.just("edit"), st.integers(0, 30), st.sampled_from(_WORDS)),
    st.tuples(st.just("delete"), st.integers(0, 30)),
    st.tuples(st.just("batch")),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(_STEP, min_size=1, max_size=25))
def test_any_mix_of_writes_and_batches_searches_like_a_scan_of_the_table(
    tmp_path_factory: pytest.TempPathFactory, head_database: Path, steps: list[tuple[object, ...]]
) -> None:
    home = tmp_path_factory.mktemp("home")
    (home / "palimpsest.db").write_bytes(head_database.read_bytes())
    storage = Storage.open(home)
    try:
        new_session(storage, "s1", "Mix")
        backlog = SearchBacklog(storage._db.read_sql, storage._db.write_sql, batch=3, most=2, check_every=1)
        alive: dict[str, str] = {}
        made = 0
        for step in steps:
            if step[0] == "add":
                made += 1
                storage.messages.add(msg(f"m{made}", "s1", f"note {step[1]}", type=MessageType.USER))
                alive[f"m{made}"] = str(step[1])
            elif step[0] in ("edit", "delete") and alive:
                target = sorted(alive)[int(str(step[1])) % len(alive)]
                if step[0] == "edit":
                    stored = storage.messages.get(target)
                    assert stored is not None
                    storage.messages.update(replace(stored, content=f"note {step[2]}"))
                    alive[target] = str(step[2])
                else:
                    with closing(sqlite3.connect(storage.path)) as db:  # a delete by another program
                        db.execute("DELETE FROM messages WHERE id = ?", (target,))
                        db.commit()
                    del alive[target]
            else:
                backlog.catch_up()
            _consistent(storage.path)
        backlog.index_all()
        for word in _WORDS:
            assert _indexed(storage.path, word) == {m for m, w in alive.items() if w == word}
    finally:
        storage.close()
