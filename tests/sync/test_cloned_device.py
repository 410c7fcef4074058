"""A data folder copied to another machine keeps the same sync device id: the first of the two to sync after the
other wrote under that id is refused with a message saying what to do, and nothing changes on either side."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.sync.devices import Device


def _files(remote: Path) -> list[str]:
    return sorted(p.relative_to(remote).as_posix() for p in remote.rglob("*") if p.is_file())


def test_a_copied_data_folder_is_refused_at_sync_time_until_it_takes_a_new_device_id(tmp_path: Path) -> None:
    remote = tmp_path / "remote"
    a = Device(tmp_path, "a")
    a.ok("sync", "setup", "folder", str(remote))
    a.sync()
    copy = Device(tmp_path, "copy")
    shutil.copytree(a.home, copy.home, dirs_exist_ok=True)
    a.ok("models", "add", "anthropic", "planner-model", "--context-window", "4096")
    a.sync()
    copy.ok("models", "add", "anthropic", "cook-model", "--context-window", "4096")
    before = _files(remote)

    refused = copy.run("sync", "now")
    assert refused.code == 1 and "Traceback" not in refused.err, refused.err
    assert "copied" in refused.err and "sync off --new-device" in refused.err, refused.err
    assert _files(remote) == before
    assert "planner-model" not in _models(copy)

    copy.ok("sync", "off", "--new-device")
    copy.ok("sync", "setup", "folder", str(remote))
    for _ in range(3):
        a.sync()
        copy.sync()
    assert {"planner-model", "cook-model"} <= set(_models(a)) and _models(a) == _models(copy)


def _models(device: Device) -> list[str]:
    return sorted(line.split()[1] for line in device.ok("models", "list", "-p", "anthropic").out.splitlines()
                  if line.endswith("-model") or "-model " in line)
