"""A sync cut short anywhere (a remote that fails at a random operation, before or after doing it) leaves both
devices sound, and the next syncs complete and converge."""

from __future__ import annotations

import random
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from data.sync.folder import FolderRemote
from domain.sync.errors import RemoteError
from tests.sync.replicas import Store, assert_sound, until_quiet

RUNS = 20


class FlakyRemote:
    """A remote whose `fail_at`-th operation raises, before doing it or (a write) after doing it."""

    def __init__(self, inner: FolderRemote, fail_at: int, after: bool) -> None:
        self.inner, self.fail_at, self.after, self.ops = inner, fail_at, after, 0

    def _tick(self) -> None:
        self.ops += 1
        if self.ops == self.fail_at:
            raise RemoteError(f"injected failure at operation {self.ops}")

    def list(self, prefix: str) -> Sequence[str]:
        self._tick()
        return self.inner.list(prefix)

    def get(self, name: str) -> bytes:
        self._tick()
        return self.inner.get(name)

    def delete(self, name: str) -> None:
        if not self.after:
            self._tick()
        self.inner.delete(name)
        if self.after:
            self._tick()

    def sweep(self, folder: str) -> int:
        self._tick()
        return self.inner.sweep(folder)

    def put(self, name: str, data: bytes, scratch: str | None = None) -> bool:
        if not self.after:
            self._tick()
            return self.inner.put(name, data, scratch)
        done = self.inner.put(name, data, scratch)
        self._tick()
        return done


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two devices that synced once, then changed things on both sides (offline)."""
    root = tmp_path_factory.mktemp("base")
    remote = FolderRemote(root / "remote")
    a, b = Store(root / "a"), Store(root / "b")
    a.conversation("s1", "Shared", ["q1", "a1"], attach=b"attached notes v1")
    a.conversation("s2", "To trash", ["q", "a"])
    b.conversation("s3", "From B", ["hello", "hi"])
    until_quiet([a, b], remote)
    a.talk("s1", ["q2 from A", "a2 from A"], attach=b"a second attachment from A")
    b.talk("s1", ["q2 from B", "a2 from B"])
    a.storage.sessions.update_fields("s1", title="Renamed on A")
    b.storage.sessions.purge("s2")
    b.conversation("s4", "New on B", ["x", "y"], attach=b"bytes only B has")
    a.close()
    b.close()
    return root


@pytest.mark.parametrize("run", range(RUNS))
def test_a_sync_cut_short_at_a_random_point_leaves_both_sides_sound(base: Path, tmp_path: Path, run: int) -> None:
    rng = random.Random(run)  # which device syncs first
    for part in ("a", "b", "remote"):
        shutil.copytree(base / part, tmp_path / part)
    remote = FolderRemote(tmp_path / "remote")
    a, b = Store(tmp_path / "a"), Store(tmp_path / "b")
    try:
        first, second = (a, b) if rng.random() < 0.5 else (b, a)
        for step, store in enumerate((first, second, first)):  # a sync takes 3 to 8 operations: each is hit
            flaky = FlakyRemote(remote, fail_at=1 + (run + step) % 7, after=(run // 7 + step) % 2 == 1)
            try:
                store.sync(flaky)
            except RemoteError:
                pass
            assert_sound(store.home)
        until_quiet([a, b], remote)
        assert a.state() == b.state()
        titles = {key[1]: value for key, value in a.state().items() if key != "order" and key[2] == "title"}
        assert titles == {"s1": "Renamed on A", "s3": "From B", "s4": "New on B"}
        ids = [row[2] for row in a.state()["order"]]
        assert len(ids) == len(set(ids)) == 10
        assert b.storage.attachment_files.exists(a.storage.attachment_files.put(b"a second attachment from A"))
        assert a.storage.attachment_files.exists(b.storage.attachment_files.put(b"bytes only B has"))
    finally:
        a.close()
        b.close()
    assert_sound(tmp_path / "a")
    assert_sound(tmp_path / "b")
