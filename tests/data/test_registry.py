"""The shipped model registry: seed presets, defaults, prices, family patterns, the 8192 guess."""

from __future__ import annotations

from pathlib import Path

import pytest

from data.registry import load_registry, normalize_model_id
from domain.errors import StorageError

SEED_PRESETS = {
    ("openai", "gpt-4o"): 128000, ("openai", "gpt-4o-mini"): 128000, ("openai", "o1"): 200000,
    ("openai", "o3-mini"): 200000, ("anthropic", "claude-opus-4-5-20251101"): 200000,
    ("anthropic", "claude-sonnet-4-5-20250929"): 200000, ("anthropic", "claude-haiku-4-5-20251001"): 200000,
    ("gemini", "gemini-2.0-flash"): 1048576, ("gemini", "gemini-2.5-pro"): 1048576,
}


def test_registry_holds_every_seed_preset_with_its_window() -> None:
    registry = load_registry()
    found = {(m.provider_id, m.id): m.context_window for m in registry.models}
    assert {key: found.get(key) for key in SEED_PRESETS} == SEED_PRESETS


def test_each_vendor_has_exactly_one_default_model() -> None:
    registry = load_registry()
    for provider in ("anthropic", "openai", "gemini"):
        assert sum(m.is_default for m in registry.for_provider(provider)) == 1
    assert registry.default_model("openai").id == "gpt-6.1-terra"  # type: ignore[union-attr]


def test_every_preset_has_a_max_output_below_its_window_and_prices_where_known() -> None:
    registry = load_registry()
    for model in registry.models:
        assert model.max_output_tokens is not None and 0 < model.max_output_tokens < model.context_window
    price = registry.price("claude-sonnet-4-5-20250929")
    assert price is not None and (price.input, price.output, price.cache_read) == (3.0, 15.0, 0.3)
    assert registry.price("no-such-model") is None


@pytest.mark.parametrize(("model_id", "window"), [
    ("claude-3-opus-20240229", 200000), ("gpt-4o-2024-05-13", 128000), ("gemini-1.5-flash-002", 1048576),
    ("deepseek-reasoner", 64000), ("grok-3-beta", 131072), ("models/gemini-2.0-flash", 1048576),
    ("anthropic/claude-3.5-sonnet", 200000), ("GPT-4O-MINI", 128000), ("qwen2.5:7b", 8192), ("", 8192),
])
def test_windows_are_guessed_from_presets_then_families_then_8192(model_id: str, window: int) -> None:
    assert load_registry().guess_window(model_id) == window


def test_the_most_specific_family_pattern_wins() -> None:
    registry = load_registry()
    assert registry.family("gpt-4-0613").context_window == 8192  # type: ignore[union-attr]
    assert registry.family("gpt-4-turbo-preview").context_window == 128000  # type: ignore[union-attr]
    assert registry.family("gemini-1.5-pro-002").context_window == 2097152  # type: ignore[union-attr]


def test_model_ids_are_normalized_by_dropping_path_prefixes() -> None:
    assert normalize_model_id(" models/Gemini-2.5-Pro ") == "gemini-2.5-pro"


@pytest.mark.parametrize("text", ["{", '{"models": []}', '{"models": [], "families": [], "unknown_window": 0}',
                                  '{"models": [{"id": "x", "provider": "p", "context_window": "big"}], '
                                  '"families": [], "unknown_window": 8192}'])
def test_a_malformed_registry_file_is_a_clear_storage_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "models.json"
    path.write_text(text)
    with pytest.raises(StorageError, match="malformed"):
        load_registry(path)


def test_gpt5_models_have_a_272k_input_limit_inside_their_400k_window() -> None:
    registry = load_registry()
    for model_id in ("gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-5.1-codex"):  # the last through the family pattern
        assert (registry.guess_window(model_id), registry.input_limit(model_id)) == (400_000, 272_000)
    assert registry.input_limit("gpt-4o") is None and registry.input_limit("claude-sonnet-4-6") is None
