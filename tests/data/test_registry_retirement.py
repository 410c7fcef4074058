"""The registry's table of retired and retiring models: it agrees with the anthropic SDK's own table, names live
successors, refuses a malformed row, and every resolved model carries its retirement (both stores)."""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
from anthropic._data.deprecated_models import DEPRECATED_MODELS

from data.db.model_resolution import resolved
from data.registry import load_registry
from data.storage import Storage
from domain.errors import StorageError
from domain.models import AiModel, Retirement


def _sdk_day(text: str) -> date:
    """'November 30th, 2026' -> 2026-11-30."""
    return datetime.strptime(re.sub(r"(\d+)(st|nd|rd|th)", r"\1", text), "%B %d, %Y").date()


def test_every_model_the_anthropic_sdk_lists_as_deprecated_retires_on_the_same_day_here() -> None:
    registry = load_registry()
    assert DEPRECATED_MODELS  # the SDK's table is there to compare with
    for model_id, day in DEPRECATED_MODELS.items():
        retirement = registry.retirement(model_id, "anthropic")
        assert retirement is not None and retirement.on == _sdk_day(day), model_id


def test_sonnet_4_5_retires_on_30_november_2026_for_sonnet_4_6() -> None:
    registry = load_registry()
    expected = Retirement(date(2026, 11, 30), "claude-sonnet-4-6", "Claude Sonnet 4.6")
    assert registry.retirement("claude-sonnet-4-5-20250929", "anthropic") == expected
    assert registry.retirement("claude-sonnet-4-5", "anthropic") == expected  # the alias
    assert registry.retirement("Claude-Sonnet-4-5-20250929") == expected  # any case, any provider when unnamed
    assert registry.retirement("claude-sonnet-4-5-20250929", "openrouter") is None  # another vendor's serving
    assert registry.retirement("claude-sonnet-4-6", "anthropic") is None


def test_every_successor_is_a_live_preset_of_the_same_vendor() -> None:
    registry = load_registry()
    for entry in registry.retirements:
        if entry.successor is not None:
            preset = registry.preset(entry.successor, entry.provider_id)
            assert preset is not None, entry
            assert registry.retirement(entry.successor, entry.provider_id) is None, entry


def _registry_file(tmp_path: Path, name: str, **row: Any) -> Path:
    raw = json.loads((Path(__file__).parents[2] / "data" / "registry" / "models.json").read_text(encoding="utf-8"))
    raw["retirements"] = [*raw["retirements"], {"provider": "anthropic", "ids": ["claude-x-1"], "on": "2026-12-01",
                                                "successor": "claude-sonnet-4-6", **row}]
    path = tmp_path / name
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


@pytest.mark.parametrize(("row", "said"), [
    ({"on": "2026-13-01"}, "is malformed ("),  # the rest is Python's own words for a bad date
    ({"on": "30 November 2026"}, "is malformed ("),
    ({"successor": "claude-nowhere"}, "the successor 'claude-nowhere' is not a preset of anthropic"),
    ({"ids": []}, "lists no ids"),
    ({"ids": ["claude-sonnet-4-6"]}, "or its own successor"),
    ({"successor": "claude-sonnet-4-20250514"}, "the successor 'claude-sonnet-4-20250514' is retired itself"),
])
def test_a_malformed_row_makes_the_registry_unreadable_with_the_reason(tmp_path: Path, row: dict[str, Any],
                                                                        said: str) -> None:
    path = _registry_file(tmp_path, f"bad-{len(str(row))}-{abs(hash(str(row)))}.json", **row)
    with pytest.raises(StorageError, match=re.escape(said)):
        load_registry(path)


def test_a_well_formed_row_is_read(tmp_path: Path) -> None:
    registry = load_registry(_registry_file(tmp_path, "good.json"))
    assert registry.retirement("claude-x-1") == Retirement(date(2026, 12, 1), "claude-sonnet-4-6", "Claude Sonnet 4.6")


def test_resolution_adds_the_retirement_to_a_stored_model_and_to_one_never_stored() -> None:
    registry = load_registry()
    stored = AiModel("claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", "anthropic", context_window_size=200_000)
    assert resolved(stored, registry, "anthropic", stored.id).retirement == registry.retirement(stored.id)
    alias = resolved(None, registry, "anthropic", "claude-opus-4-5")
    assert alias.retirement is not None and alias.retirement.on == date(2027, 1, 22)
    assert alias.retirement.successor == "claude-opus-4-8"
    assert resolved(None, registry, "anthropic", "claude-sonnet-4-6").retirement is None


def test_both_stores_resolve_a_retiring_model_with_its_retirement(storage: Storage) -> None:
    model = storage.models.resolve("anthropic", "claude-sonnet-4-5-20250929")
    assert model.retirement == Retirement(date(2026, 11, 30), "claude-sonnet-4-6", "Claude Sonnet 4.6")
    assert storage.models.resolve("anthropic", "claude-sonnet-4-6").retirement is None


# (provider, ids, day, successor) as OpenAI's and Google's deprecation pages give them (sources in the registry)
VENDOR_DAYS = [
    ("openai", ("o1", "o1-2024-12-17", "o3-mini", "o4-mini-2025-04-16", "gpt-4.1-nano", "gpt-4o-2024-05-13"),
     date(2026, 10, 23), None),
    ("openai", ("gpt-5", "gpt-5-2025-08-07"), date(2026, 12, 11), "gpt-6.1-sol"),
    ("openai", ("gpt-5-nano-2025-08-07", "o3", "o3-2025-04-16"), date(2026, 12, 11), None),
    ("openai", ("gpt-5-mini", "gpt-5-mini-2025-08-07"), date(2026, 12, 11), "gpt-6.1-terra"),
    ("openai", ("gpt-4o", "gpt-4o-2024-11-20", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini-2025-04-14"),
     date(2027, 1, 14), None),
    ("gemini", ("gemini-3-pro-preview",), date(2026, 3, 9), None),
    ("gemini", ("gemini-2.0-flash", "gemini-2.0-flash-001"), date(2026, 6, 1), None),
    ("gemini", ("gemini-2.0-flash-lite", "gemini-2.0-flash-lite-001"), date(2026, 6, 1), "gemini-2.5-flash-lite"),
    ("gemini", ("gemini-2.5-pro",), date(2026, 12, 1), "gemini-3.8-flash"),
    ("gemini", ("gemini-2.5-flash", "models/gemini-2.5-flash"), date(2026, 12, 1), "gemini-3.5-flash-lite"),
]


@pytest.mark.parametrize(("provider", "ids", "day", "successor"), VENDOR_DAYS)
def test_openai_and_gemini_models_retire_on_their_vendors_days(provider: str, ids: tuple[str, ...], day: date,
                                                               successor: str | None) -> None:
    registry = load_registry()
    for model_id in ids:
        retirement = registry.retirement(model_id, provider)
        assert retirement is not None and (retirement.on, retirement.successor) == (day, successor), model_id
        assert registry.retirement(model_id, "openrouter") is None  # a router serves models on its own terms


def test_openai_and_gemini_models_nobody_retired_have_no_day() -> None:
    registry = load_registry()
    assert registry.retirement("gemini-2.5-flash-lite", "gemini") is None
    assert registry.retirement("gemini-3.5-flash-lite", "gemini") is None
    default = registry.default_model("gemini")
    assert default is not None and default.id == "gemini-3.5-flash-lite"  # (the default: not one that retires)
    assert registry.retirement("gpt-4.1-nano-2025-04-14-ft", "openai") is None  # another id, not a prefix match


def test_both_stores_keep_the_day_a_providers_list_reported_until_the_next_list(storage: Storage) -> None:
    listed = [AiModel("claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", "anthropic",
                      retirement=Retirement(date(2026, 12, 15))),
              AiModel("claude-new-1", "Claude New", "anthropic", retirement=Retirement(date(2027, 3, 1)))]
    storage.models.store_fetched("anthropic", listed)
    # the provider's day; the successor stays the registry's
    expected = Retirement(date(2026, 12, 15), "claude-sonnet-4-6", "Claude Sonnet 4.6")
    assert storage.models.resolve("anthropic", "claude-sonnet-4-5-20250929").retirement == expected
    by_id = {m.id: m for m in storage.models.list("anthropic")}
    assert by_id["claude-sonnet-4-5-20250929"].retirement == expected
    assert by_id["claude-new-1"].retirement == Retirement(date(2027, 3, 1))
    storage.models.store_fetched("anthropic", [AiModel("claude-new-1", "Claude New", "anthropic")])  # withdrawn
    by_id = {m.id: m for m in storage.models.list("anthropic")}
    assert by_id["claude-new-1"].retirement is None
    assert by_id["claude-sonnet-4-5-20250929"].retirement == expected  # not in that list: its last answer stays
