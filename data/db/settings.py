"""SettingsRepository and CalibrationStore over SQLite (settings as JSON, tolerant of unknown keys)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from data.db.engine import Database
from data.db.rows import CalibrationRow, SettingRow
from data.db.settings_json import context_settings, stored_object, tool_settings
from data.db.timestamps import micros
from domain.errors import InvalidInput
from domain.settings import ContextSettings, ToolSettings

CONTEXT_KEY = "context"
TOOLS_KEY = "tools"
_UPSERT_RATIO = ("INSERT INTO calibration (key, ratio, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET"
                 " ratio = excluded.ratio, updated_at = excluded.updated_at")  # plain SQL: after every round


class SqlSettingsRepository:
    """App-wide settings; a stored key this version does not know, or a value of the wrong type, is ignored."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def context_settings(self) -> ContextSettings:
        return self._db.cached(("settings", CONTEXT_KEY), self._context_settings)

    def _context_settings(self) -> ContextSettings:
        return context_settings(self._stored(CONTEXT_KEY))

    def save_context_settings(self, settings: ContextSettings) -> None:
        self._store(CONTEXT_KEY, asdict(settings))

    def tool_settings(self) -> ToolSettings:
        return tool_settings(self._stored(TOOLS_KEY))

    def save_tool_settings(self, settings: ToolSettings) -> None:
        self._store(TOOLS_KEY, {"allowed_hosts": list(settings.allowed_hosts)})

    def _stored(self, key: str) -> dict[str, Any]:
        with self._db.read() as s:
            row = s.get(SettingRow, key)
            return stored_object(row.value if row else None)

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
        with self._db.known_write_sql() as con:  # one upsert, after every round; no message read changes with it
            con.execute(_UPSERT_RATIO, (key, ratio, micros(datetime.now(UTC))))
