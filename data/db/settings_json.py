"""Stored settings read back from their JSON (shared by data/db and data/lite, no SQLAlchemy): a key this version
does not know, or a value of the wrong type, is ignored."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

from domain.settings import ContextSettings, ToolSettings


def stored_object(raw: str | None) -> dict[str, Any]:
    """A setting's JSON object ({} for none, broken JSON or another kind of value)."""
    try:
        stored = json.loads(raw) if raw else {}
    except ValueError:
        stored = {}
    return stored if isinstance(stored, dict) else {}


def context_settings(stored: dict[str, Any]) -> ContextSettings:
    """The context settings a stored object gives (the defaults for anything missing or unusable)."""
    defaults = ContextSettings()
    clean: dict[str, Any] = {}
    for f in fields(ContextSettings):
        if f.name in stored and _same_kind(stored[f.name], getattr(defaults, f.name)):
            clean[f.name] = stored[f.name]
    return ContextSettings(**clean)


def tool_settings(stored: dict[str, Any]) -> ToolSettings:
    """The tool settings a stored object gives."""
    hosts = stored.get("allowed_hosts")
    if not isinstance(hosts, list):
        return ToolSettings()
    return ToolSettings(allowed_hosts=tuple(h for h in hosts if isinstance(h, str)))


def _same_kind(value: Any, default: Any) -> bool:
    if default is None:
        return value is None or isinstance(value, str)
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, type(default)) and not (isinstance(value, bool) and not isinstance(default, bool))
