"""Sync through a real WebDAV server (WsgiDAV) on 127.0.0.1, end to end through the CLI of two devices."""

from __future__ import annotations

from pathlib import Path

from tests.sync.devices import Device
from tests.sync.scenario import run_scenario
from tests.sync.servers import WEBDAV_PASSWORD, WEBDAV_USER, WebDavServer


def test_two_devices_converge_through_webdav_after_offline_edits_on_both(tmp_path: Path) -> None:
    env = {"PALIMPSEST_SYNC_PASSWORD": WEBDAV_PASSWORD}
    with WebDavServer(tmp_path / "dav") as server:
        a, b = Device(tmp_path, "a", env), Device(tmp_path, "b", env)
        run_scenario(a, b, ["webdav", server.url + "palimpsest", "--user", WEBDAV_USER])
    assert any((tmp_path / "dav" / "palimpsest" / "devices").iterdir())


def test_a_wrong_webdav_password_is_one_line_and_nothing_is_set_up(tmp_path: Path) -> None:
    with WebDavServer(tmp_path / "dav") as server:
        a = Device(tmp_path, "a", {"PALIMPSEST_SYNC_PASSWORD": "not-it"})
        refused = a.run("sync", "setup", "webdav", server.url, "--user", WEBDAV_USER)
        assert refused.code == 1 and "refused the user or password" in refused.err
        assert a.run("sync", "status").code == 1
