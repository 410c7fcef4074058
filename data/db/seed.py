"""Seeds the built-in providers, the default agent and the registry's preset models (idempotent, never clobbers),
over a plain sqlite3 connection: every open runs it, the full store's (data.storage) and the lite one's (data.lite)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from data.db.built_in import DEFAULT_AGENT_ID
from data.db.capabilities_json import capabilities_from_json, capabilities_to_json, refreshed
from data.db.timestamps import micros
from data.registry import Registry, RegistryModel
from domain.models import ModelSource, ProviderType, WindowSource

BUILT_IN_PROVIDERS = (
    ("anthropic", "Anthropic", ProviderType.ANTHROPIC),
    ("openai", "OpenAI", ProviderType.OPENAI),
    ("gemini", "Google Gemini", ProviderType.GEMINI),
)
BUILT_IN_TOOLS = ("http_request", "save_memory", "search_memory", "read_tool_result")
# a preset's window refreshed on open replaces neither of these: they stay until `models set-window ID auto`
INFERRED_SOURCES = frozenset({WindowSource.LEARNED.value, WindowSource.GUESSED.value})
DEFAULT_AGENT_NAME = "General assistant"
DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."


_MODEL_COLUMNS = ("display_name", "source", "context_window_size", "max_output_tokens", "window_is_guess",
                  "user_window", "window_source", "input_limit", "capabilities", "is_default")


def seed_file(path: Path, registry: Registry, busy_seconds: float = 30.0) -> None:
    """Seeds the database file in one write transaction of its own."""
    with closing(sqlite3.connect(path, timeout=busy_seconds, isolation_level=None)) as conn:
        conn.execute("BEGIN IMMEDIATE")
        try:
            seed(conn, registry)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")


def seed(conn: sqlite3.Connection, registry: Registry) -> None:
    """Adds what is missing; refreshes preset windows unless the user set one, and the presets' capabilities that
    came from the registry (what the provider reported or the user set stays). Runs inside the caller's write
    transaction and writes a row only when a value changes (each write moves the configuration revision)."""
    now = micros(datetime.now(UTC))
    providers = {str(r[0]) for r in conn.execute("SELECT id FROM providers")}
    for provider_id, name, kind in BUILT_IN_PROVIDERS:
        if provider_id not in providers:
            conn.execute("INSERT INTO providers (id, name, type, base_url, is_active, created_at, updated_at)"
                         " VALUES (?, ?, ?, NULL, 1, ?, ?)", (provider_id, name, kind.value, now, now))
    if conn.execute("SELECT 1 FROM agents WHERE id = ?", (DEFAULT_AGENT_ID,)).fetchone() is None:
        conn.execute("INSERT INTO agents (id, name, system_prompt, preferred_provider_id, preferred_model_id,"
                     " tool_names, is_built_in, created_at, updated_at, context_overrides)"
                     " VALUES (?, ?, ?, NULL, NULL, ?, 1, ?, ?, '{}')",
                     (DEFAULT_AGENT_ID, DEFAULT_AGENT_NAME, DEFAULT_SYSTEM_PROMPT, json.dumps(list(BUILT_IN_TOOLS)),
                      now, now))
    cursor = conn.execute(f"SELECT id, provider_id, {', '.join(_MODEL_COLUMNS)} FROM models")
    models = {(r[0], r[1]): dict(zip(_MODEL_COLUMNS, r[2:], strict=True)) for r in cursor}  # one read
    for preset in registry.models:
        row = models.get((preset.id, preset.provider_id))
        if row is None:
            conn.execute("INSERT INTO models (id, provider_id, display_name, is_default, source, context_window_size,"
                         " max_output_tokens, window_is_guess, user_window, input_limit, capabilities)"
                         " VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?)",
                         (preset.id, preset.provider_id, preset.display_name, preset.is_default,
                          ModelSource.PRESET.value, preset.context_window, preset.max_output_tokens,
                          preset.input_limit, capabilities_to_json(preset.capabilities)))
            models[(preset.id, preset.provider_id)] = {  # as inserted: a preset listed twice is refreshed
                "display_name": preset.display_name, "source": ModelSource.PRESET.value,
                "context_window_size": preset.context_window, "max_output_tokens": preset.max_output_tokens,
                "window_is_guess": False, "user_window": False, "window_source": None,
                "input_limit": preset.input_limit, "capabilities": capabilities_to_json(preset.capabilities),
                "is_default": preset.is_default}
            continue
        changed = {k: v for k, v in _refreshed(row, preset).items() if v != row[k]}
        if changed:
            conn.execute(f"UPDATE models SET {', '.join(f'{k} = :{k}' for k in changed)}"
                         " WHERE id = :model_id AND provider_id = :provider_id",
                         {**changed, "model_id": preset.id, "provider_id": preset.provider_id})


def _refreshed(row: dict[str, Any], preset: RegistryModel) -> dict[str, Any]:
    """A stored preset's columns as the shipped registry leaves them."""
    new = dict(row)
    new["is_default"] = preset.is_default  # the vendor's default moves with the registry (no user sets it)
    new["capabilities"] = capabilities_to_json(refreshed(capabilities_from_json(row["capabilities"]),
                                                         preset.capabilities))
    if row["user_window"]:
        return new
    inferred = row["window_source"] in INFERRED_SOURCES  # learned or guessed: kept until the user undoes it
    if (row["source"] == ModelSource.PRESET.value and not inferred) or row["context_window_size"] is None:
        new.update(context_window_size=preset.context_window, window_is_guess=False, window_source=None)
    if row["max_output_tokens"] is None:
        new["max_output_tokens"] = preset.max_output_tokens
    if row["input_limit"] is None:  # a limit learned from the provider (always lower) is kept
        new["input_limit"] = preset.input_limit
    if not row["display_name"]:
        new["display_name"] = preset.display_name
    return new
