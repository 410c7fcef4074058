"""A WebDAV upload cut short between its PUT (aside, as .part) and its MOVE into place leaves a .part file; the next
sync of the device that wrote it deletes it, and never another device's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from data.sync.webdav import WebDavRemote
from tests.sync.replicas import Store, until_quiet
from tests.sync.servers import WEBDAV_PASSWORD, WEBDAV_USER, WebDavServer


class Killed(BaseException):
    """The process dies here (nothing after it runs)."""


class KilledBeforeMove(WebDavRemote):
    """A WebDAV remote whose process is killed after an upload's PUT, before its MOVE."""

    def _send(self, method: str, name: str, **kwargs: Any) -> httpx.Response:
        if method == "MOVE":
            raise Killed()
        return super()._send(method, name, **kwargs)


def _leftovers(root: Path, device: str) -> list[Path]:
    return [p for p in root.rglob("*.part") if f"/{device}/" in p.as_posix()]


def test_a_device_deletes_its_own_part_files_on_its_next_sync_and_no_one_elses(tmp_path: Path) -> None:
    a, b = Store(tmp_path / "a"), Store(tmp_path / "b")
    try:
        with WebDavServer(tmp_path / "dav") as server:
            url = server.url + "sync"
            a.conversation("s1", "From A", ["q", "a"], attach=b"an attachment of A")
            b.conversation("s2", "From B", ["q", "a"], attach=b"an attachment of B")
            for store in (a, b):
                with pytest.raises(Killed):
                    store.sync(KilledBeforeMove(url, WEBDAV_USER, WEBDAV_PASSWORD))
            root = tmp_path / "dav" / "sync"
            every = list(root.rglob("*.part"))
            assert len(every) == 2  # the first upload of each: its attachment
            assert len(_leftovers(root, a.replica.device)) == 1 and len(_leftovers(root, b.replica.device)) == 1

            remote = WebDavRemote(url, WEBDAV_USER, WEBDAV_PASSWORD)
            a.sync(remote)
            assert _leftovers(root, a.replica.device) == []
            assert len(_leftovers(root, b.replica.device)) == 1
            until_quiet([b, a], remote)
            assert list(root.rglob("*.part")) == []
            assert a.state() == b.state()
    finally:
        a.close()
        b.close()


def test_a_folder_remote_sweeps_only_the_syncing_devices_part_files(tmp_path: Path) -> None:
    from data.sync.folder import FolderRemote

    a, b = Store(tmp_path / "a"), Store(tmp_path / "b")
    try:
        remote = FolderRemote(tmp_path / "remote")
        a.conversation("s1", "From A", ["q", "a"])
        until_quiet([a, b], remote)
        for store in (a, b):  # what a process killed after writing aside leaves
            folder = tmp_path / "remote" / "devices" / store.replica.device
            folder.mkdir(parents=True, exist_ok=True)
            (folder / ".c0000000009.dead.part").write_bytes(b"torn")
        a.sync(remote)
        assert [p.parent.name for p in (tmp_path / "remote").rglob("*.part")] == [b.replica.device]
    finally:
        a.close()
        b.close()
