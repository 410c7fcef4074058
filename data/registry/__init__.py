"""The shipped model registry: preset models with windows, prices and capabilities, family patterns for unknown ids."""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from datetime import date
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from data.registry.capabilities import parse_capabilities
from domain.errors import StorageError
from domain.models import CapabilitySource, ModelCapabilities, ModelId, ProviderId, Retirement


@dataclass(frozen=True)
class ModelPrice:
    """Prices in USD per million tokens; cache_read is None where unknown."""

    input: float
    output: float
    cache_read: float | None = None
    web_search: float | None = None  # USD per web search (the provider's search tool), where it has one


@dataclass(frozen=True)
class RegistryModel:
    """A preset model of one of the three vendors."""

    id: ModelId
    provider_id: ProviderId
    display_name: str
    context_window: int
    max_output_tokens: int | None
    is_default: bool
    price: ModelPrice | None
    capabilities: ModelCapabilities | None = None
    input_limit: int | None = None  # input tokens the API accepts when below the window (GPT-5: 272K of 400K)


@dataclass(frozen=True)
class FamilyPattern:
    """A glob over model ids (matched case-insensitively), the window and the capabilities its members usually
    have."""

    pattern: str
    context_window: int
    capabilities: ModelCapabilities | None = None
    input_limit: int | None = None


@dataclass(frozen=True)
class RetiredModels:
    """Model ids (a dated snapshot and its alias) a vendor retires on one day, and the model it names instead."""

    provider_id: ProviderId
    ids: frozenset[str]  # lower case
    on: date
    successor: ModelId | None


@dataclass(frozen=True)
class Registry:
    """Everything in models.json, typed."""

    models: tuple[RegistryModel, ...]
    families: tuple[FamilyPattern, ...]
    unknown_window: int
    prices_as_of: str
    retirements: tuple[RetiredModels, ...] = ()

    def retirement(self, model_id: ModelId, provider_id: ProviderId | None = None) -> Retirement | None:
        """When the vendor retires this model (its id as the vendor spells it, with or without a `models/`-style
        prefix), with the successor it names; None when no retirement is announced."""
        key = normalize_model_id(model_id)
        for entry in self.retirements:
            if key in entry.ids and (provider_id is None or entry.provider_id == provider_id):
                successor = self.preset(entry.successor, entry.provider_id) if entry.successor else None
                return Retirement(entry.on, entry.successor, successor.display_name if successor else None)
        return None

    def preset(self, model_id: ModelId, provider_id: ProviderId | None = None) -> RegistryModel | None:
        """The preset with this id (any provider unless one is given); vendor prefixes like `models/` are ignored."""
        key = normalize_model_id(model_id)
        for model in self.models:
            if model.id.lower() == key and (provider_id is None or model.provider_id == provider_id):
                return model
        return None

    def family(self, model_id: ModelId) -> FamilyPattern | None:
        """The first family pattern matching the id, if any."""
        key = normalize_model_id(model_id)
        for family in self.families:
            if fnmatch.fnmatchcase(key, family.pattern.lower()):
                return family
        return None

    def guess_window(self, model_id: ModelId) -> int:
        """A preset's window, else a family's, else the conservative unknown_window."""
        preset = self.preset(model_id)
        if preset is not None:
            return preset.context_window
        family = self.family(model_id)
        return family.context_window if family is not None else self.unknown_window

    def capabilities(self, model_id: ModelId, provider_id: ProviderId | None = None) -> ModelCapabilities | None:
        """A preset's capabilities, else the first family's that has some (marked as family guesses), else None."""
        preset = self.preset(model_id, provider_id)
        if preset is not None and preset.capabilities is not None:
            return preset.capabilities
        key = normalize_model_id(model_id)
        for family in self.families:
            if family.capabilities is not None and fnmatch.fnmatchcase(key, family.pattern.lower()):
                return family.capabilities
        return None

    def input_limit(self, model_id: ModelId) -> int | None:
        """A preset's separate input limit, else its family's, else None (the window is the limit)."""
        preset = self.preset(model_id)
        if preset is not None:
            return preset.input_limit
        family = self.family(model_id)
        return family.input_limit if family is not None else None

    def default_model(self, provider_id: ProviderId) -> RegistryModel | None:
        """The model marked default for a vendor."""
        return next((m for m in self.models if m.provider_id == provider_id and m.is_default), None)

    def price(self, model_id: ModelId) -> ModelPrice | None:
        """Known prices of a model, or None."""
        preset = self.preset(model_id)
        return preset.price if preset is not None else None

    def for_provider(self, provider_id: ProviderId) -> tuple[RegistryModel, ...]:
        """The presets of one vendor, in file order."""
        return tuple(m for m in self.models if m.provider_id == provider_id)


def normalize_model_id(model_id: ModelId) -> str:
    """Lower-cases an id and drops path prefixes such as `models/` (Gemini) or `openai/` (routers)."""
    return model_id.strip().rsplit("/", 1)[-1].lower()


@cache
def load_registry(path: Path | None = None) -> Registry:
    """Loads and validates the registry (the shipped models.json unless a path is given)."""
    source = str(path) if path is not None else "the shipped models.json"
    try:
        if path is None:
            text = resources.files(__package__).joinpath("models.json").read_text(encoding="utf-8")
        else:
            text = path.read_text(encoding="utf-8")
        return _parse(json.loads(text))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise StorageError(f"The model registry {source} is malformed ({exc}).") from exc


def _parse(raw: dict[str, Any]) -> Registry:
    searches = dict(raw.get("web_search_price_per_search") or {})  # USD per search, by provider
    models = tuple(_parse_model(entry, searches) for entry in raw["models"])
    families = tuple(
        FamilyPattern(str(f["pattern"]), _positive(f["context_window"]), parse_capabilities(f, CapabilitySource.FAMILY),
                      _positive(f["input_limit"]) if f.get("input_limit") is not None else None)
        for f in raw["families"]
    )
    ids = [(m.provider_id, m.id) for m in models]
    if len(ids) != len(set(ids)):
        raise ValueError("duplicate model ids")
    retirements = tuple(_parse_retirement(entry, set(ids)) for entry in raw.get("retirements", ()))
    retired = {(r.provider_id, i) for r in retirements for i in r.ids}
    for r in retirements:
        if r.successor is not None and (r.provider_id, normalize_model_id(r.successor)) in retired:
            raise ValueError(f"the successor {r.successor!r} is retired itself")
    return Registry(models, families, _positive(raw["unknown_window"]), str(raw.get("prices_as_of", "")),
                    retirements)


def _parse_retirement(entry: dict[str, Any], presets: set[tuple[str, str]]) -> RetiredModels:
    """One row of `retirements`: the ids, the day (ISO 8601) and the successor, which must be a preset of the same
    vendor (and, checked over the whole table, not retired itself)."""
    provider, successor = str(entry["provider"]), entry.get("successor")
    if successor is not None and (provider, successor) not in presets:
        raise ValueError(f"the successor {successor!r} is not a preset of {provider}")
    ids = frozenset(normalize_model_id(str(i)) for i in entry["ids"])
    if not ids or successor in ids:
        raise ValueError(f"a retirement lists no ids, or its own successor: {sorted(ids)}")
    return RetiredModels(provider, ids, date.fromisoformat(str(entry["on"])), successor)


def _search_price(prices: dict[str, Any], provider: str) -> float | None:
    value = prices.get(provider)
    return float(value) if value is not None else None


def _parse_model(entry: dict[str, Any], raw_search: dict[str, Any] | None = None) -> RegistryModel:
    raw_search = raw_search or {}
    price = entry.get("price")
    max_output = entry.get("max_output_tokens")
    return RegistryModel(
        id=str(entry["id"]),
        provider_id=str(entry["provider"]),
        display_name=str(entry.get("display_name") or entry["id"]),
        context_window=_positive(entry["context_window"]),
        max_output_tokens=_positive(max_output) if max_output is not None else None,
        is_default=bool(entry.get("default", False)),
        price=ModelPrice(float(price["input"]), float(price["output"]),
                         float(price["cache_read"]) if price.get("cache_read") is not None else None,
                         _search_price({**raw_search, entry["provider"]: entry["web_search_price"]}
                                       if "web_search_price" in entry else raw_search, entry["provider"]))
        if price else None,
        capabilities=parse_capabilities(entry, CapabilitySource.REGISTRY),
        input_limit=_positive(entry["input_limit"]) if entry.get("input_limit") is not None else None,
    )


def _positive(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"expected a positive integer, got {value!r}")
    return value
