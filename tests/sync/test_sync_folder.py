"""Sync through a plain folder, end to end through the CLI of two devices."""

from __future__ import annotations

from pathlib import Path

from tests.sync.devices import KEY, Device
from tests.sync.scenario import run_scenario


def test_two_devices_converge_through_a_folder_after_offline_edits_on_both(tmp_path: Path) -> None:
    a, b = Device(tmp_path, "a"), Device(tmp_path, "b")
    run_scenario(a, b, ["folder", str(tmp_path / "remote")])
    files = [f.read_bytes() for f in (tmp_path / "remote").rglob("*") if f.is_file()]
    assert files and not any(KEY.encode() in data for data in files)  # API keys stay in each keychain
