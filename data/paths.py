"""Where Palimpsest keeps its data: $PALIMPSEST_HOME, else the platform's user data folder."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

HOME_ENV = "PALIMPSEST_HOME"


def data_dir() -> Path:
    """Returns the data folder (created if missing): $PALIMPSEST_HOME if set, else user_data_dir("palimpsest")."""
    override = os.environ.get(HOME_ENV, "").strip()
    path = Path(override).expanduser() if override else Path(platformdirs.user_data_dir("palimpsest"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def database_path(home: Path | None = None) -> Path:
    """The SQLite file inside the data folder."""
    return (home if home is not None else data_dir()) / "palimpsest.db"
