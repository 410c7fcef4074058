"""Old change files are pruned: once a device has written a second snapshot it deletes its change files (and
snapshots) up to the one before; a device that lagged behind the deleted files catches up from the snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest

from data.sync.folder import FolderRemote
from domain.sync import sync_now
from tests.sync.replicas import Store, assert_sound, until_quiet

EVERY = 5


def _own(remote: FolderRemote, store: Store) -> list[str]:
    return [n.rsplit("/", 1)[1] for n in remote.list(sync_now.DEVICES) if f"/{store.replica.device}/" in n]


def test_a_device_prunes_its_old_files_and_a_lagging_device_still_converges(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sync_now, "SNAPSHOT_EVERY", EVERY)
    remote = FolderRemote(tmp_path / "remote")
    a, b = Store(tmp_path / "a"), Store(tmp_path / "b")
    try:
        a.conversation("s1", "Long one", ["q0", "a0"])
        a.sync(remote)
        b.sync(remote)  # b has a's first file, then lags
        b.conversation("s2", "B's own, offline", ["b-q", "b-a"])
        for i in range(2 * EVERY + 2):
            a.storage.sessions.update_fields("s1", title=f"Title {i}")
            a.talk("s1", [f"q{i + 1}"])
            a.sync(remote)
        own = _own(remote, a)
        assert "c0000000001" not in own and "s0000000005" not in own  # pruned up to the older snapshot
        assert f"s{2 * EVERY:010d}" in own and f"c{2 * EVERY + 3:010d}" in own
        assert min(own) == f"c{EVERY + 1:010d}"

        until_quiet([b, a], remote)
        assert a.state() == b.state()
        session = b.storage.sessions.get("s1")
        assert session is not None and session.title == f"Title {2 * EVERY + 1}"
        assert b.storage.sessions.get("s2") is not None and a.storage.sessions.get("s2") is not None
        for store in (a, b):
            assert_sound(store.home)
    finally:
        a.close()
        b.close()
