"""The data folder: $PALIMPSEST_HOME relocates everything, else the platform's user data folder."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest

from data.paths import data_dir, database_path


def test_palimpsest_home_relocates_the_data_folder_and_is_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "nested" / "home"
    monkeypatch.setenv("PALIMPSEST_HOME", str(target))
    assert data_dir() == target and target.is_dir()
    assert database_path() == target / "palimpsest.db"


def test_without_palimpsest_home_the_platform_folder_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PALIMPSEST_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == Path(platformdirs.user_data_dir("palimpsest"))
    assert data_dir().is_dir()
