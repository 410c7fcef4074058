"""Context-management settings: app-wide defaults, overridable per agent."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from domain.errors import InvalidInput
from domain.web import WebSearchSettings


def _domains(text: str | None) -> tuple[str, ...]:
    return tuple(d.strip().lower() for d in (text or "").split(",") if d.strip())


LOCATION_FIELDS = ("city", "region", "country", "timezone")


def _location(text: str | None) -> tuple[tuple[str, str], ...]:
    """`key=value` pairs of an approximate location (unknown keys and blank values left out)."""
    pairs = (p.partition("=") for p in (text or "").split(","))
    return tuple((k.strip().lower(), v.strip()) for k, _, v in pairs if k.strip().lower() in LOCATION_FIELDS
                 and v.strip())

REASONING_LEVELS = ("off", "auto", "low", "medium", "high", "max")  # "auto": the provider's default for the model

SETTING_ALIASES = {
    "pruning": "pruning_enabled",
    "memory_flush": "memory_flush_enabled",
    "flush": "memory_flush_enabled",
    "threshold": "compact_threshold_ratio",
    "protected": "protected_window_ratio",
    "compaction_model": "compaction_model_id",
    "headers_timeout": "headers_timeout_s",
    "idle_timeout": "idle_timeout_s",
    "round_timeout": "round_timeout_s",
    "semantic": "semantic_search",
    "embeddings": "embedding_model",
}
MAX_SYSTEM_PROMPT_CHARS = 100_000  # a conversation's own prompt (agents' have no limit); keeps a pasted file in check
DEADLINE_RANGE_S = (0.1, 86_400.0)  # a provider's deadlines: a tenth of a second to a day
_TRUE = ("on", "true", "yes", "1")
_FALSE = ("off", "false", "no", "0")


def setting_name(key: str) -> str:
    """The ContextSettings field a user's key names (an alias such as `pruning`, or the field itself)."""
    clean = key.strip().lower().replace("-", "_")
    name = SETTING_ALIASES.get(clean, clean)
    known = [f.name for f in fields(ContextSettings)]
    if name not in known:
        raise InvalidInput(f"Unknown context setting {key!r}. Known: {', '.join([*SETTING_ALIASES, *known])}.")
    return name


def parse_setting(key: str, text: str) -> tuple[str, Any]:
    """A `KEY=VALUE` pair of text as a context-setting field name and a typed value (InvalidInput when the key is
    unknown or the value is not of the field's type). Ratios also take percentages: `threshold=80%`."""
    name = setting_name(key)
    kind = str(next(f.type for f in fields(ContextSettings) if f.name == name))
    value = text.strip()
    try:
        if kind == "bool":
            if value.lower() not in (*_TRUE, *_FALSE):
                raise ValueError
            return name, value.lower() in _TRUE
        if kind == "int":
            return name, int(value.replace("_", "").replace(",", ""))
        if kind == "float":
            return name, float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        expected = {"bool": "on or off", "int": "a whole number", "float": "a number such as 0.8 or 80%"}[kind]
        raise InvalidInput(f"{name} takes {expected}, not {text!r}.") from None
    return name, value or None


@dataclass(frozen=True)
class Deadlines:
    """How long one round may wait on a provider, in seconds: for the response headers (one retry), for the next
    piece of the reply (keep-alive pings do not count), and for the whole reply."""

    headers_s: float = 60.0
    idle_s: float = 300.0  # room for models that think silently for minutes
    round_s: float = 1800.0


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
    reasoning: str = "auto"
    headers_timeout_s: float = Deadlines.headers_s
    idle_timeout_s: float = Deadlines.idle_s
    round_timeout_s: float = Deadlines.round_s
    tool_definitions_warn_ratio: float = 0.10  # warn when the tools' definitions take more of the window
    web_search: bool = False  # offer the provider's native web search
    web_max_uses: int = 5  # searches one request may run
    web_allowed_domains: str | None = None  # comma-separated; only these domains' pages (wins over blocked ones)
    web_blocked_domains: str | None = None  # comma-separated; never these domains' pages
    web_user_location: str | None = None  # e.g. "city=Brest,country=FR,timezone=Europe/Paris": nearer results
    keep_last_web_searches: int = 2  # searched replies whose provider's blocks go back whole (older: as text)
    web_prune_batch: int = 4  # older searched replies are turned to text this many at a time (the cache prefix holds)
    semantic_search: bool = False  # rank document passages by BM25 mixed with embeddings' similarity (sends passages)
    embedding_model: str | None = None  # "PROVIDER" or "PROVIDER/MODEL" that embeds them (None: the first that can)

    @property
    def web(self) -> WebSearchSettings:
        """The web search these settings ask for."""
        return WebSearchSettings(self.web_search, self.web_max_uses or None, _domains(self.web_allowed_domains),
                                 _domains(self.web_blocked_domains), _location(self.web_user_location))

    @property
    def deadlines(self) -> Deadlines:
        """The request deadlines these settings set."""
        return Deadlines(self.headers_timeout_s, self.idle_timeout_s, self.round_timeout_s)

    def with_overrides(self, overrides: Mapping[str, Any]) -> ContextSettings:
        """Returns these settings with an agent's overrides applied; unknown keys are an error."""
        known = {f.name: f for f in fields(self)}
        clean: dict[str, Any] = {}
        for key, value in overrides.items():
            if key not in known:
                raise InvalidInput(f"Unknown context setting {key!r}. Known: {', '.join(known)}.")
            clean[key] = value
        return replace(self, **clean)

    def validated(self) -> ContextSettings:
        """These settings, or InvalidInput naming the first field outside what the context engine can work with."""
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("int", "float") and (isinstance(value, bool) or not isinstance(value, int | float)):
                raise InvalidInput(f"{f.name} must be a number, not {value!r}.")
            if f.type == "bool" and not isinstance(value, bool):
                raise InvalidInput(f"{f.name} must be on or off, not {value!r}.")
        if not 0.3 <= self.compact_threshold_ratio <= 0.98:
            raise InvalidInput("The compaction threshold must be between 30% and 98% of the window.")
        if not 0.05 <= self.protected_window_ratio <= 0.6:
            raise InvalidInput("The protected recent window must be between 5% and 60% of the window.")
        if self.protected_window_ratio >= self.compact_threshold_ratio:
            raise InvalidInput("The protected recent window must be smaller than the compaction threshold.")
        if self.reasoning not in REASONING_LEVELS:
            raise InvalidInput(f"Reasoning must be one of {', '.join(REASONING_LEVELS)}, not {self.reasoning!r}.")
        if self.summary_max_tokens < 256:
            raise InvalidInput("The summary needs at least 256 tokens.")
        if not 0.0 < self.tool_definitions_warn_ratio <= 1.0:
            raise InvalidInput("The tool definitions warning share must be between 0% and 100% of the window.")
        if not 0.0 <= self.min_free_ratio < 1.0:
            raise InvalidInput("The minimum share a compaction must free is between 0% and 99%.")
        for name in ("tool_result_max_chars", "soft_trim_chars", "max_tool_rounds", "max_output_tokens",
                     "tool_result_archive_max_bytes", "memory_section_max_chars"):
            if getattr(self, name) < 1:
                raise InvalidInput(f"{name} must be at least 1.")
        for name in ("soft_trim_head", "soft_trim_tail", "keep_last_tool_results", "hard_clear_after",
                     "prune_min_clear_chars", "memory_flush_margin_tokens"):
            if getattr(self, name) < 0:
                raise InvalidInput(f"{name} cannot be negative.")
        low, high = DEADLINE_RANGE_S
        for name in ("headers_timeout_s", "idle_timeout_s", "round_timeout_s"):
            seconds = getattr(self, name)
            if not low <= seconds <= high:
                raise InvalidInput(f"{name} must be between {low:g} and {high:,g} seconds, not {seconds!r}.")
        return self


@dataclass(frozen=True)
class ToolSettings:
    """App-wide settings of the built-in tools: the hosts on the user's own machine or network that http_request may
    reach anyway (host names, IP addresses or CIDR networks, validated by domain.usecases.save_tool_settings)."""

    allowed_hosts: tuple[str, ...] = ()
