"""Several Palimpsest processes starting at once on a new data folder all succeed (no "database is locked")."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from data.db.engine import use_wal
from data.db.file_lock import LockTimeout, exclusive_lock
from data.storage import Storage

ROOT = Path(__file__).resolve().parents[2]
ROUNDS, PROCESSES = 5, 4


def test_four_processes_starting_together_on_a_fresh_folder_all_succeed(tmp_path: Path) -> None:
    failures = []
    for round_number in range(ROUNDS):
        home = tmp_path / f"home-{round_number}"
        env = {**os.environ, "PALIMPSEST_HOME": str(home), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
        procs = [subprocess.Popen([sys.executable, "-m", "app", "sessions", "list"], env=env, cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(PROCESSES)]
        for proc in procs:
            _, err = proc.communicate(timeout=120)
            if proc.returncode != 0:
                failures.append((round_number, proc.returncode, err[-500:]))
        with sqlite3.connect(home / "palimpsest.db") as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert conn.execute("SELECT count(*) FROM providers").fetchone()[0] == 3  # seeded once, not 4 times
    assert failures == []


def test_the_start_lock_makes_a_second_holder_wait_and_gives_up_after_its_timeout(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    order: list[str] = []
    holding = threading.Event()

    def holder() -> None:
        with exclusive_lock(lock):
            holding.set()
            time.sleep(0.3)
            order.append("first released")

    thread = threading.Thread(target=holder)
    thread.start()
    holding.wait(5)
    with pytest.raises(LockTimeout), exclusive_lock(lock, timeout=0.05):
        order.append("never")
    with exclusive_lock(lock, timeout=10):
        order.append("second")
    thread.join()
    assert order == ["first released", "second"]


def test_switching_to_wal_waits_for_a_busy_database_instead_of_failing(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    with sqlite3.connect(path) as setup:
        setup.execute("CREATE TABLE t (x)")
    busy = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    busy.execute("BEGIN EXCLUSIVE")
    timer = threading.Timer(0.3, lambda: busy.execute("COMMIT"))
    timer.start()
    waiting = sqlite3.connect(path, isolation_level=None, timeout=0.01)
    try:
        use_wal(waiting, timeout=10)
        assert waiting.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        timer.join()
        waiting.close()
        busy.close()


def test_opening_twice_in_one_process_finds_the_work_done(tmp_path: Path) -> None:
    first = Storage.open(tmp_path)
    second = Storage.open(tmp_path)
    try:
        assert [p.id for p in second.providers.list()] == [p.id for p in first.providers.list()]
        assert (tmp_path / "palimpsest.db.lock").exists()
    finally:
        first.close()
        second.close()
