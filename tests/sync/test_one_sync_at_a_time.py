"""Two syncs of one data folder never run at once: a second `palimpsest sync now` waits for the first (and says
so), the desktop app's sync says one is already running; the device's own files then stay its own."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from app.gui.bridge_sync import SyncBridge
from app.sync_faults import FAULT_ENV
from app.sync_service import one_sync, sync_now
from data.sync.cipher import create_meta
from data.sync.config import SyncConfig, save_config
from data.sync.folder import FolderRemote
from domain.sync.errors import SyncRunning
from tests.cli.harness import ROOT
from tests.sync.replicas import Store, assert_sound, until_quiet

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP/SIGCONT are POSIX")


def _sync_now(home: Path, fault: str | None = None) -> subprocess.Popen[bytes]:
    env = {"PATH": "/usr/bin:/bin", "PALIMPSEST_HOME": str(home),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    if fault:
        env[FAULT_ENV] = fault
    return subprocess.Popen([sys.executable, "-m", "app", "sync", "now"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_second_sync_of_the_same_device_waits_for_the_first(tmp_path: Path) -> None:
    a = Store(tmp_path / "a")
    a.conversation("s1", "Shared", ["q1", "a1"])
    create_meta(FolderRemote(tmp_path / "remote"), None)
    save_config(a.storage.unit_of_work, SyncConfig("folder", str(tmp_path / "remote")))
    first = _sync_now(a.home, "stop:mark_pushed")  # stops itself after its upload, before it records it
    second: subprocess.Popen[bytes] | None = None
    try:
        _, status = os.waitpid(first.pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status), first.communicate()
        with pytest.raises(SyncRunning):  # the desktop app's sync meanwhile: not started, said so
            sync_now(a.storage)
        second = _sync_now(a.home)
        assert second.stderr is not None
        line = second.stderr.readline().decode()
        assert "already running" in line and "waiting" in line, line
        os.kill(first.pid, signal.SIGCONT)
        _, err = first.communicate(timeout=60)
        assert first.returncode == 0, err
        _, err = second.communicate(timeout=60)
        assert second.returncode == 0, err
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    assert_sound(a.home)
    b = Store(tmp_path / "b")
    try:
        a.talk("s1", ["q2"])
        until_quiet([a, b], FolderRemote(tmp_path / "remote"))  # DeviceCopied here when the two had interleaved
        assert a.state() == b.state()
    finally:
        a.close()
        b.close()


def test_the_desktop_apps_sync_skips_its_round_while_another_runs(tmp_path: Path) -> None:
    a = Store(tmp_path / "a")
    try:
        create_meta(FolderRemote(tmp_path / "remote"), None)
        save_config(a.storage.unit_of_work, SyncConfig("folder", str(tmp_path / "remote")))
        bridge = SyncBridge()
        bridge._c = SimpleNamespace(storage=a.storage)  # type: ignore[assignment]
        with one_sync(a.storage):  # `palimpsest sync now` running (the lock is per open file, even in one process)
            outcome = asyncio.run(bridge.sync_now())
        assert "already running" in outcome.summary and outcome.received == 0
        assert a.replica.written() is None  # nothing was sent
        assert "Received 0" in asyncio.run(bridge.sync_now()).summary  # once it ended, the next round runs
    finally:
        a.close()
