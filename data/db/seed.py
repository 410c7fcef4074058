"""Seeds the built-in providers, the default agent and the registry's preset models (idempotent, never clobbers)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import select

from data.db.agents import DEFAULT_AGENT_ID
from data.db.capabilities_json import capabilities_from_json, capabilities_to_json, refreshed
from data.db.engine import Database
from data.db.rows import AgentRow, ModelRow, ProviderRow
from data.registry import Registry
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


def seed(db: Database, registry: Registry) -> None:
    """Adds what is missing; refreshes preset windows unless the user set one, and the presets' capabilities that
    came from the registry (what the provider reported or the user set stays)."""
    now = datetime.now(UTC)
    with db.write() as s:
        providers = {row.id for row in s.scalars(select(ProviderRow))}
        for provider_id, name, kind in BUILT_IN_PROVIDERS:
            if provider_id not in providers:
                s.add(ProviderRow(id=provider_id, name=name, type=kind.value, base_url=None, is_active=True,
                                  created_at=now, updated_at=now))
        if s.get(AgentRow, DEFAULT_AGENT_ID) is None:
            s.add(AgentRow(id=DEFAULT_AGENT_ID, name=DEFAULT_AGENT_NAME, system_prompt=DEFAULT_SYSTEM_PROMPT,
                           preferred_provider_id=None, preferred_model_id=None,
                           tool_names=json.dumps(list(BUILT_IN_TOOLS)), is_built_in=True, created_at=now,
                           updated_at=now, context_overrides="{}"))
        s.flush()
        models = {(row.id, row.provider_id): row for row in s.scalars(select(ModelRow))}  # one read, not one a preset
        for preset in registry.models:
            row = models.get((preset.id, preset.provider_id))
            if row is None:
                row = ModelRow(id=preset.id, provider_id=preset.provider_id, display_name=preset.display_name,
                               is_default=preset.is_default, source=ModelSource.PRESET.value,
                               context_window_size=preset.context_window, max_output_tokens=preset.max_output_tokens,
                               window_is_guess=False, user_window=False, input_limit=preset.input_limit,
                               capabilities=capabilities_to_json(preset.capabilities))
                models[(preset.id, preset.provider_id)] = row
                s.add(row)
                continue
            fresh = refreshed(capabilities_from_json(row.capabilities), preset.capabilities)
            row.capabilities = capabilities_to_json(fresh)
            if row.user_window:
                continue
            inferred = row.window_source in INFERRED_SOURCES  # learned or guessed: kept until the user undoes it
            if (row.source == ModelSource.PRESET.value and not inferred) or row.context_window_size is None:
                row.context_window_size, row.window_is_guess = preset.context_window, False
                row.window_source = None
            if row.max_output_tokens is None:
                row.max_output_tokens = preset.max_output_tokens
            if row.input_limit is None:  # a limit learned from the provider (always lower) is kept
                row.input_limit = preset.input_limit
            if not row.display_name:
                row.display_name = preset.display_name
