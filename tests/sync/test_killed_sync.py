"""`palimpsest sync now` killed (SIGKILL, sent from outside) at random moments of its run leaves both devices sound;
the next syncs complete and converge. With test_killed_at_points.py's 17 chosen points: 20 real SIGKILLs."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from data.sync.cipher import create_meta
from data.sync.config import SyncConfig, save_config
from data.sync.folder import FolderRemote
from tests.cli.harness import ROOT
from tests.sync.replicas import Store, assert_sound, until_quiet

RUNS = 3
MESSAGES = 3_000  # enough that the sync itself, not only the start-up, takes a while


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("killbase")
    remote = FolderRemote(root / "remote")
    create_meta(remote, None)
    a, b = Store(root / "a"), Store(root / "b")
    a.conversation("s1", "Shared", ["q1", "a1"])
    until_quiet([a, b], remote)
    a.talk("s1", [f"A message {i}" for i in range(MESSAGES)], attach=b"notes from A")
    b.conversation("s2", "From B", [f"B message {i}" for i in range(200)])
    for store in (a, b):
        save_config(store.storage.unit_of_work, SyncConfig("folder", str(root / "remote")))
        store.close()
    return root


def _sync_process(home: Path, action: str = "now") -> subprocess.Popen[bytes]:
    env = {"PATH": "/usr/bin:/bin", "PALIMPSEST_HOME": str(home),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    return subprocess.Popen([sys.executable, "-m", "app", "sync", action], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _copy(base: Path, to: Path) -> None:
    for part in ("a", "b", "remote"):
        shutil.copytree(base / part, to / part)
    for part in ("a", "b"):  # the copies sync with the copied remote
        store = Store(to / part)
        save_config(store.storage.unit_of_work, SyncConfig("folder", str(to / "remote")))
        store.close()


def _timed(home: Path, action: str) -> float:
    started = time.monotonic()
    done = _sync_process(home, action)
    _, err = done.communicate(timeout=120)
    assert done.returncode == 0, err
    return time.monotonic() - started


@pytest.fixture(scope="module")
def window(base: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[float, float]:
    """When the sync itself runs in an uncut `sync now` here: after the start-up (`sync status` takes about as
    long to get going), until the end (the kills land within)."""
    root = tmp_path_factory.mktemp("timing")
    _copy(base, root)
    start_up = _timed(root / "b", "status")
    return start_up * 0.8, _timed(root / "a", "now")


@pytest.mark.parametrize("run", range(RUNS))
def test_a_sync_killed_at_a_random_moment_leaves_both_sides_sound(base: Path, tmp_path: Path,
                                                                  window: tuple[float, float], run: int) -> None:
    rng = random.Random(run)
    who = "a" if run % 2 == 0 else "b"
    killed = False
    for attempt in range(8):  # a sync that ended before its kill is run again, from the same state, killed sooner
        here = tmp_path / f"attempt{attempt}"
        _copy(base, here)
        process = _sync_process(here / who)
        try:
            process.wait(timeout=rng.uniform(*window) * 0.85**attempt)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
            killed = process.returncode == -signal.SIGKILL
        if killed:
            break
    assert killed
    for part in ("a", "b"):
        assert_sound(here / part)
    a, b = Store(here / "a"), Store(here / "b")
    try:
        until_quiet([a, b], FolderRemote(here / "remote"))
        assert a.state() == b.state()
        assert len(a.state()["order"]) == 2 + MESSAGES + 200
    finally:
        a.close()
        b.close()
