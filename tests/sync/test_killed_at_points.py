"""`palimpsest sync now` SIGKILLed at chosen points of its run (before a given operation on the remote or the local
store, or inside an SQLite statement of a merge or of marking a push) leaves both devices sound; the next syncs
complete and converge, nothing lost, nothing twice. The sync killed receives the other device's file (with an
attachment), sends its own (attachments, a tool result's full text, a delete), writes a snapshot and prunes."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import sqlite3
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from app.sync_faults import FAULT_ENV
from app.sync_service import sync_now
from data.sync.cipher import create_meta
from data.sync.config import SyncConfig, save_config
from data.sync.folder import FolderRemote
from domain.context.truncator import ToolResultTruncator
from domain.models import Memory, Message, MessageType
from domain.sync.sync_now import SNAPSHOT_EVERY
from tests.sync.forker import Forker
from tests.sync.replicas import Store, assert_sound, until_quiet

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")

OP_RUNS, DB_RUNS = 14, 3  # with test_killed_sync.py's 3 timed kills: 20 real SIGKILLs
FULL = "".join(f"{i:06d}\n" for i in range(10_000))  # a tool output cut to 30K, its original kept


@dataclass(frozen=True)
class Op:
    """One operation of an uncut sync: its number, name, and SQLite's progress callbacks before it."""

    n: int
    name: str
    db: int


def _prepare(root: Path) -> None:
    """A has pushed 2 * SNAPSHOT_EVERY - 1 files (its next push writes a snapshot and prunes), B has a file A has not
    applied, and A has offline changes of every sort."""
    remote = FolderRemote(root / "remote")
    create_meta(remote, None)
    a, b = Store(root / "a"), Store(root / "b")
    a.conversation("s1", "Shared", ["q1", "a1"], attach=b"notes from A")
    a.conversation("s2", "To delete", ["q", "a"])
    a.storage.memories.add(Memory("m1", "a fact", datetime.now(UTC)))
    until_quiet([a, b], remote)
    for i in range(2 * SNAPSHOT_EVERY - 2):
        a.storage.sessions.update_fields("s1", title=f"Title {i}")
        a.sync(remote)
    b.talk("s1", ["q2 from B", "a2 from B"], attach=b"notes from B")
    b.sync(remote)
    a.talk("s1", ["q2 from A", "a2 from A"], attach=b"more notes from A")
    cut = ToolResultTruncator().truncate(FULL, "r1")
    a.storage.messages.add(Message("r1", "s1", MessageType.TOOL_RESULT, cut.stored, tool_name="http_request",
                                   tool_output_original_chars=cut.original_chars), full_output=cut.original)
    a.storage.sessions.update_fields("s1", title="Renamed on A")
    a.storage.sessions.purge("s2")
    a.storage.memories.delete("m1")
    for store in (a, b):
        save_config(store.storage.unit_of_work, SyncConfig("folder", str(root / "remote")))
        store.close()


def _copy(base: Path, to: Path) -> None:
    for part in ("a", "b", "remote"):
        shutil.copytree(base / part, to / part)
    for part in ("a", "b"):
        store = Store(to / part)
        save_config(store.storage.unit_of_work, SyncConfig("folder", str(to / "remote")))
        store.close()


def _trace(base: Path, root: Path) -> list[Op]:
    """The operations of the uncut sync (run here, traced)."""
    _copy(base, root)
    store = Store(root / "a")
    err = io.StringIO()
    os.environ[FAULT_ENV] = "trace"
    try:
        with contextlib.redirect_stderr(err):
            sync_now(store.storage)
    finally:
        del os.environ[FAULT_ENV]
        store.close()
    ops = []
    for line in err.getvalue().splitlines():
        _, n, name, db = line.split()
        ops.append(Op(int(n), name, int(db.removeprefix("db="))))
    return ops


def _points(ops: list[Op]) -> list[tuple[str, str]]:
    """OP_RUNS points spread over the writes: the start, just before and just after each write (of the prune's
    deletes the first, the middle and the last); then DB_RUNS points inside the merge's transaction and inside
    marking the push; (the fault, the operation it lands before or in)."""
    deletes = [op.n for op in ops if op.name == "delete"]
    candidates = {1, *deletes[:1], *deletes[len(deletes) // 2:len(deletes) // 2 + 1], *deletes[-1:]}
    for op in ops:
        if op.name in ("write_blob", "apply", "put", "begin_push", "mark_pushed"):
            candidates.update(n for n in (op.n, op.n + 1) if n <= len(ops))
    ordered = sorted(candidates)
    picked = sorted({ordered[i * (len(ordered) - 1) // (OP_RUNS - 1)] for i in range(OP_RUNS)})
    inside = [(op.name, op.db, ops[op.n].db) for op in ops[:-1] if op.name in ("apply", "mark_pushed")]
    db_points = []
    for i in range(DB_RUNS):  # spread over the merge's callbacks and marking the push's, in turn
        name, start, end = inside[i % len(inside)]
        db_points.append((f"kill-db:{start + (end - start) * (i // len(inside) + 1) // (DB_RUNS + 1)}", name))
    return [(f"kill:{n}", ops[n - 1].name) for n in picked] + db_points


def _kill_all(base: Path, root: Path, chosen: list[tuple[str, str]]) -> list[tuple[Path, int, str]]:
    """Runs `palimpsest sync now` once per point, each on its own copy, each a process of its own (forked from one
    that imported the app once: the start-up is most of a run); (the copy, the exit status, standard error)."""
    forker = Forker({"PATH": "/usr/bin:/bin", "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"})
    results: list[tuple[Path, int, str]] = []
    try:
        for i, (point, _) in enumerate(chosen):
            home = root / f"run{i}"
            _copy(base, home)
            status, err = forker.run(["sync", "now"], {"PALIMPSEST_HOME": str(home / "a"), FAULT_ENV: point},
                                     root / f"run{i}.err")
            results.append((home, status, err))
    finally:
        forker.close()
    return results


@dataclass(frozen=True)
class Killed:
    """The runs: the uncut copy, each fault with where it lands, each run's copy, exit status and error output."""

    base: Path
    chosen: list[tuple[str, str]]
    results: list[tuple[Path, int, str]]


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Killed]:
    base = tmp_path_factory.mktemp("pointbase")
    _prepare(base)
    chosen = _points(_trace(base, tmp_path_factory.mktemp("trace")))
    assert len({fault for fault, _ in chosen}) == OP_RUNS + DB_RUNS, chosen
    yield Killed(base, chosen, _kill_all(base, tmp_path_factory.mktemp("killed"), chosen))


def _sync_tables(home: Path) -> tuple[list[Any], Any]:
    with sqlite3.connect(home / "palimpsest.db") as conn:
        return (conn.execute("SELECT device, seq FROM sync_applied ORDER BY device").fetchall(),
                conn.execute("SELECT value FROM sync_meta WHERE key = 'written'").fetchone())


@pytest.mark.parametrize("run", range(OP_RUNS + DB_RUNS))
def test_a_sync_killed_at_a_chosen_point_leaves_both_sides_sound(killed: Killed, run: int) -> None:
    (fault, where), (home, status, err) = killed.chosen[run], killed.results[run]
    assert status == -signal.SIGKILL, (fault, where, err)
    for part in ("a", "b"):
        assert_sound(home / part)
    applied, written = _sync_tables(home / "a")
    if fault.startswith("kill-db") and where == "apply":  # inside the merge's transaction: none of it kept
        assert applied == _sync_tables(killed.base / "a")[0]
    if fault.startswith("kill-db") and where == "mark_pushed":  # inside marking the push: still under way
        assert json.loads(written[0])["nonce"] is not None
    a, b = Store(home / "a"), Store(home / "b")
    try:
        until_quiet([a, b], FolderRemote(home / "remote"))
        state = a.state()
        assert state == b.state()
        ids = [row[2] for row in state["order"]]
        assert len(ids) == len(set(ids)) == 7 and "r1" in ids  # s1: 2 + 2 from B + 2 from A + the tool result
        assert state[("session", "s1", "title")] == "Renamed on A" and ("session", "s2", "title") not in state
        assert b.storage.memories.list() == [] and b.storage.messages.full_output("r1") == FULL
        for data in (b"notes from A", b"notes from B", b"more notes from A"):
            sha = a.storage.attachment_files.put(data)
            assert a.storage.attachment_files.exists(sha) and b.storage.attachment_files.exists(sha)
    finally:
        a.close()
        b.close()
    for part in ("a", "b"):
        assert_sound(home / part)
