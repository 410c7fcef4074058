"""Snapshots: after SNAPSHOT_EVERY change files a device writes its whole state, and a new device starts from the
newest snapshot (not by replaying every file) then applies only the files written after it."""

from __future__ import annotations

from pathlib import Path

from data.sync.folder import FolderRemote
from domain.sync import sync_now
from domain.sync.sync_now import SNAPSHOT_EVERY
from tests.sync.replicas import Store, until_quiet


class CountingRemote(FolderRemote):
    """A folder remote that remembers which files were read."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.read: list[str] = []

    def get(self, name: str) -> bytes:
        self.read.append(name)
        return super().get(name)


def test_a_new_device_starts_from_the_newest_snapshot(tmp_path: Path) -> None:
    remote = CountingRemote(tmp_path / "remote")
    a, b = Store(tmp_path / "a"), Store(tmp_path / "b")
    a.conversation("s1", "Long one", ["q0", "a0"])
    b.sync(remote)
    for i in range(SNAPSHOT_EVERY + 2):
        a.storage.sessions.update_fields("s1", title=f"Title {i}")
        a.talk("s1", [f"q{i + 1}"])
        a.sync(remote)
    names = remote.list(sync_now.DEVICES)
    snapshots = [n for n in names if n.rsplit("/", 1)[1].startswith("s")]
    assert len(snapshots) == 1
    b.sync(remote)
    b.talk("s1", ["b's own"])
    until_quiet([a, b], remote)

    c = Store(tmp_path / "c")
    remote.read.clear()
    c.sync(remote)
    a_files = [n for n in remote.read if f"/{a.replica.device}/" in n]
    assert a_files[0] == snapshots[0]
    assert len(a_files) == 3  # the snapshot, then only the two files written after it (of 52)
    until_quiet([a, b, c], remote)
    assert c.state() == a.state() == b.state()
    for store in (a, b, c):
        store.close()
