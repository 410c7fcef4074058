"""ModelRepository: resolve with registry guesses, fetched lists and learned limits; a user window always wins."""

from __future__ import annotations

import pytest

from data.storage import Storage
from domain.errors import InvalidInput, NotFound
from domain.models import AiModel, ModelSource, Provider, ProviderType, WindowSource


def test_resolve_returns_a_stored_preset_as_known(storage: Storage) -> None:
    model = storage.models.resolve("anthropic", "claude-sonnet-4-5-20250929")
    assert (model.context_window_size, model.window_is_guess, model.source) == (200000, False, ModelSource.PRESET)


def test_resolve_guesses_unknown_ids_from_family_patterns(storage: Storage) -> None:
    assert storage.models.resolve("anthropic", "claude-future-9").context_window_size == 200000
    assert storage.models.resolve("openai", "gpt-4o-2024-11-20").context_window_size == 128000
    assert storage.models.resolve("gemini", "models/gemini-exp-1206").context_window_size == 1048576
    deepseek = storage.models.resolve("openai", "deepseek-chat")
    assert (deepseek.context_window_size, deepseek.window_is_guess) == (64000, True)
    assert storage.models.resolve("openai", "grok-3-mini").context_window_size == 131072


def test_resolve_gives_an_unknown_model_a_conservative_guess(storage: Storage) -> None:
    model = storage.models.resolve("openai", "llama3.1:8b")
    assert (model.context_window_size, model.window_is_guess, model.provider_id) == (8192, True, "openai")


def test_resolve_knows_a_preset_served_by_another_provider(storage: Storage) -> None:
    storage.providers.add(Provider(id="router", name="Router", type=ProviderType.OPENAI_COMPATIBLE,
                                   base_url="https://router.example/v1"))
    model = storage.models.resolve("router", "openai/gpt-4o-mini")
    assert (model.context_window_size, model.window_is_guess) == (128000, False)


def test_resolve_fills_a_stored_model_without_window_from_the_registry(storage: Storage) -> None:
    storage.models.store_fetched("openai", [AiModel(id="gpt-4o-audio", display_name="Audio", provider_id="openai")])
    model = storage.models.resolve("openai", "gpt-4o-audio")
    assert (model.display_name, model.context_window_size, model.window_is_guess) == ("Audio", 128000, True)


def test_store_fetched_adds_new_models_and_never_overwrites_a_user_window(storage: Storage) -> None:
    storage.models.set_user_window("openai", "gpt-4o", 50000, 4000)
    storage.models.store_fetched("openai", [
        AiModel(id="gpt-4o", display_name="GPT-4o (api)", provider_id="openai", context_window_size=128000),
        AiModel(id="new-one", display_name=None, provider_id="openai", context_window_size=32000),
    ])
    kept = storage.models.get("openai", "gpt-4o")
    assert kept is not None and (kept.context_window_size, kept.max_output_tokens, kept.user_window) == (
        50000, 4000, True)
    added = storage.models.get("openai", "new-one")
    assert added is not None and (added.source, added.context_window_size) == (ModelSource.FETCHED, 32000)


def test_store_fetched_without_windows_keeps_the_preset_window(storage: Storage) -> None:
    storage.models.store_fetched("openai", [AiModel(id="gpt-4o", display_name=None, provider_id="openai")])
    model = storage.models.get("openai", "gpt-4o")
    assert model is not None and (model.context_window_size, model.source) == (128000, ModelSource.PRESET)


def test_record_limit_learns_a_window_but_never_over_a_user_window(storage: Storage) -> None:
    storage.models.record_limit("openai", "mystery", 32768)
    learned = storage.models.resolve("openai", "mystery")
    assert (learned.context_window_size, learned.window_is_guess) == (32768, False)
    storage.models.set_user_window("openai", "mystery", 16000)
    storage.models.record_limit("openai", "mystery", 99999)
    assert storage.models.get("openai", "mystery").context_window_size == 16000  # type: ignore[union-attr]


def test_upsert_keeps_a_user_window_unless_the_new_model_is_user_set(storage: Storage) -> None:
    storage.models.set_user_window("gemini", "gemini-2.5-pro", 300000)
    preset_again = AiModel(id="gemini-2.5-pro", display_name="Pro", provider_id="gemini",
                           context_window_size=1048576)
    assert storage.models.upsert(preset_again).context_window_size == 300000
    user_again = AiModel(id="gemini-2.5-pro", display_name="Pro", provider_id="gemini",
                         context_window_size=200000, user_window=True)
    assert storage.models.upsert(user_again).context_window_size == 200000


@pytest.mark.parametrize(("window", "max_output"), [(0, None), (-5, None), (1000, 0), (1000, 1000)])
def test_nonsensical_windows_are_refused_and_change_nothing(
    storage: Storage, window: int, max_output: int | None
) -> None:
    with pytest.raises(InvalidInput):
        storage.models.set_user_window("openai", "gpt-4o", window, max_output)
    assert storage.models.get("openai", "gpt-4o").context_window_size == 128000  # type: ignore[union-attr]


def test_models_of_an_unknown_provider_are_not_found(storage: Storage) -> None:
    with pytest.raises(NotFound):
        storage.models.set_user_window("ghost", "m", 1000)
    with pytest.raises(NotFound):
        storage.models.record_limit("ghost", "m", 1000)


def test_list_filters_by_provider_with_the_default_first(storage: Storage) -> None:
    models = storage.models.list("gemini")
    assert {m.provider_id for m in models} == {"gemini"}
    assert models[0].id == "gemini-3.5-flash-lite" and models[0].is_default


def test_a_seeded_gpt5_resolves_with_its_input_limit_and_window(storage: Storage) -> None:
    model = storage.models.resolve("openai", "gpt-5")
    assert (model.context_window_size, model.input_limit) == (400_000, 272_000)
    unknown = storage.models.resolve("openai", "gpt-5.2-preview")  # not a preset: the family's
    assert (unknown.context_window_size, unknown.input_limit) == (400_000, 272_000)


@pytest.mark.parametrize("source", [WindowSource.LEARNED, WindowSource.GUESSED])
def test_a_learned_or_guessed_window_of_a_preset_survives_reopening_until_cleared(tmp_path, source) -> None:
    first = Storage.open(tmp_path)
    try:
        preset = first.models.resolve("anthropic", "claude-sonnet-4-6").context_window_size
        first.models.record_limit("anthropic", "claude-sonnet-4-6", 4_140, source=source)
    finally:
        first.close()
    again = Storage.open(tmp_path)  # opening refreshes the presets from the registry
    try:
        kept = again.models.resolve("anthropic", "claude-sonnet-4-6")
        assert (kept.context_window_size, kept.window_source) == (4_140, source)
        again.models.clear_window("anthropic", "claude-sonnet-4-6")
    finally:
        again.close()
    third = Storage.open(tmp_path)
    try:
        back = third.models.resolve("anthropic", "claude-sonnet-4-6")
        assert (back.context_window_size, back.window_source) == (preset, WindowSource.REGISTRY)
    finally:
        third.close()
