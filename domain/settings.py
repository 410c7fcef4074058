"""Context-management settings: app-wide defaults, overridable per agent."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from domain.errors import InvalidInput


@dataclass(frozen=True)
class ContextSettings:
    """Every tunable of the context engine; the defaults are Palimpsest's choices."""

    compact_threshold_ratio: float = 0.85
    protected_window_ratio: float = 0.25
    summary_max_tokens: int = 2048
    compaction_model_id: str | None = None
    min_free_ratio: float = 0.10
    tool_result_max_chars: int = 30_000
    tool_result_archive_max_bytes: int = 4 * 1024 * 1024
    pruning_enabled: bool = True
    soft_trim_chars: int = 4_000
    soft_trim_head: int = 1_500
    soft_trim_tail: int = 1_500
    keep_last_tool_results: int = 2
    hard_clear_after: int = 6
    prune_min_clear_chars: int = 20_000
    memory_flush_enabled: bool = True
    memory_flush_margin_tokens: int = 4_000
    memory_section_max_chars: int = 4_000
    max_tool_rounds: int = 10
    max_output_tokens: int = 4_096

    def with_overrides(self, overrides: Mapping[str, Any]) -> ContextSettings:
        """Returns these settings with an agent's overrides applied; unknown keys are an error."""
        known = {f.name: f for f in fields(self)}
        clean: dict[str, Any] = {}
        for key, value in overrides.items():
            if key not in known:
                raise InvalidInput(f"Unknown context setting {key!r}.")
            clean[key] = value
        return replace(self, **clean)
