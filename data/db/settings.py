"""SettingsRepository and CalibrationStore over SQLite (settings as JSON, tolerant of unknown keys)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, fields
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Table
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from data.db.engine import Database
from data.db.rows import CalibrationRow, SettingRow
from domain.errors import InvalidInput
from domain.settings import ContextSettings, ToolSettings

CONTEXT_KEY = "context"
TOOLS_KEY = "tools"
_CALIBRATION = cast(Table, CalibrationRow.__table__)
_INSERT_RATIO = sqlite_insert(_CALIBRATION)
_UPSERT_RATIO = _INSERT_RATIO.on_conflict_do_update(
    index_elements=[_CALIBRATION.c.key],
    set_={"ratio": _INSERT_RATIO.excluded.ratio, "updated_at": _INSERT_RATIO.excluded.updated_at},
)


class SqlSettingsRepository:
    """App-wide settings; a stored key this version does not know, or a value of the wrong type, is ignored."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def context_settings(self) -> ContextSettings:
        return self._db.cached(("settings", CONTEXT_KEY), self._context_settings)

    def _context_settings(self) -> ContextSettings:
        stored = self._stored(CONTEXT_KEY)
        defaults = ContextSettings()
        clean: dict[str, Any] = {}
        for f in fields(ContextSettings):
            if f.name in stored and _same_kind(stored[f.name], getattr(defaults, f.name)):
                clean[f.name] = stored[f.name]
        return ContextSettings(**clean)

    def save_context_settings(self, settings: ContextSettings) -> None:
        self._store(CONTEXT_KEY, asdict(settings))

    def tool_settings(self) -> ToolSettings:
        hosts = self._stored(TOOLS_KEY).get("allowed_hosts")
        if not isinstance(hosts, list):
            return ToolSettings()
        return ToolSettings(allowed_hosts=tuple(h for h in hosts if isinstance(h, str)))

    def save_tool_settings(self, settings: ToolSettings) -> None:
        self._store(TOOLS_KEY, {"allowed_hosts": list(settings.allowed_hosts)})

    def _stored(self, key: str) -> dict[str, Any]:
        with self._db.read() as s:
            row = s.get(SettingRow, key)
            raw = row.value if row else None
        try:
            stored = json.loads(raw) if raw else {}
        except ValueError:
            stored = {}
        return stored if isinstance(stored, dict) else {}

    def _store(self, key: str, values: dict[str, Any]) -> None:
        value = json.dumps(values, sort_keys=True)
        with self._db.write() as s:
            row = s.get(SettingRow, key)
            if row is None:
                s.add(SettingRow(key=key, value=value))
            else:
                row.value = value


class SqlCalibrationStore:
    """Per-model ratio of provider-reported to estimated input tokens."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, key: str) -> float | None:
        with self._db.read() as s:
            row = s.get(CalibrationRow, key)
            return float(row.ratio) if row else None

    def put(self, key: str, ratio: float) -> None:
        if not math.isfinite(ratio) or ratio <= 0:
            raise InvalidInput(f"A calibration ratio must be a positive number, not {ratio}.")
        with self._db.write() as s:  # one upsert statement: this runs after every round
            s.execute(_UPSERT_RATIO, {"key": key, "ratio": ratio, "updated_at": datetime.now(UTC)})


def _same_kind(value: Any, default: Any) -> bool:
    if default is None:
        return value is None or isinstance(value, str)
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, type(default)) and not (isinstance(value, bool) and not isinstance(default, bool))
