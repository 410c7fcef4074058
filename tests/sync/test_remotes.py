"""The three remotes keep the Remote contract: a file appears whole, a name is never written twice, listing is by
prefix and leaves half-written files out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from data.sync.folder import FolderRemote
from data.sync.s3 import S3Remote
from data.sync.webdav import WebDavRemote
from domain.sync.errors import RemoteMissing
from domain.sync.ports import Remote
from tests.sync.servers import S3_KEY, S3_SECRET, WEBDAV_PASSWORD, WEBDAV_USER, S3Server, WebDavServer


@pytest.fixture(params=["folder", "webdav", "s3"])
def remote(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Remote]:
    if request.param == "folder":
        yield FolderRemote(tmp_path / "remote")
    elif request.param == "webdav":
        with WebDavServer(tmp_path / "dav") as server:
            yield WebDavRemote(server.url + "sync/root", WEBDAV_USER, WEBDAV_PASSWORD)
    else:
        with S3Server() as server:
            yield S3Remote(f"s3://{server.bucket}/sync/root", server.endpoint, S3_KEY, S3_SECRET)


def test_a_name_is_written_once_and_never_replaced(remote: Remote) -> None:
    assert remote.list("devices/") == []
    assert remote.put("devices/d1/c0000000001", b"first") is True
    assert remote.put("devices/d1/c0000000001", b"second") is False
    assert remote.get("devices/d1/c0000000001") == b"first"


def test_listing_is_by_prefix_and_sorted(remote: Remote) -> None:
    for name in ("devices/d2/c0000000002", "devices/d1/c0000000001", "blobs/ab", "meta.json"):
        assert remote.put(name, name.encode())
    assert remote.list("devices/") == ["devices/d1/c0000000001", "devices/d2/c0000000002"]
    assert remote.list("blobs/") == ["blobs/ab"]
    assert "meta.json" in remote.list("")


def test_reading_a_missing_file_says_it_is_missing(remote: Remote) -> None:
    with pytest.raises(RemoteMissing):
        remote.get("devices/nobody/c0000000001")
    remote.put("devices/somebody/c0000000001", b"x")
    with pytest.raises(RemoteMissing):
        remote.get("devices/somebody/c0000000002")


def test_a_file_is_deleted_and_deleting_a_missing_one_is_no_error(remote: Remote) -> None:
    for name in ("devices/d1/c0000000001", "devices/d1/c0000000002"):
        remote.put(name, b"x")
    remote.delete("devices/d1/c0000000001")
    remote.delete("devices/d1/c0000000001")
    assert remote.list("devices/") == ["devices/d1/c0000000002"]
    with pytest.raises(RemoteMissing):
        remote.get("devices/d1/c0000000001")
