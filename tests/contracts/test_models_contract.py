"""ModelRepository contract: models of known providers only, and a user-set window wins over every other source."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from domain.errors import InvalidInput, NotFound
from domain.models import (
    AiModel,
    CapabilitySource,
    ModelCapabilities,
    ModelSource,
    Provider,
    ProviderType,
    ThinkingForm,
    WindowSource,
)
from tests.contracts.conftest import Store

LOCAL = "local"  # a provider of its own, so the SQL store's registry presets stay out of the way


def _local(store: Store) -> None:
    store.providers.add(Provider(id=LOCAL, name="Local", type=ProviderType.OPENAI_COMPATIBLE,
                                 base_url="http://localhost:11434/v1"))


def model(model_id: str = "llama", **fields: object) -> AiModel:
    values: dict[str, object] = {"display_name": "Llama", "provider_id": LOCAL, **fields}
    return AiModel(id=model_id, **values)  # type: ignore[arg-type]


def test_upsert_stores_every_field(store: Store) -> None:
    _local(store)
    given = model(is_default=True, source=ModelSource.USER, context_window_size=32_000, max_output_tokens=4_000,
                  window_is_guess=True, user_window=False, window_source=WindowSource.SERVER, input_limit=30_000)
    assert store.models.upsert(given) == given
    assert store.models.get(LOCAL, "llama") == given
    assert store.models.get(LOCAL, "nothing") is None


def test_list_filters_by_provider_with_the_default_first_then_by_id(store: Store) -> None:
    _local(store)
    for m in (model("c"), model("a"), model("b", is_default=True)):
        store.models.upsert(m)
    assert [m.id for m in store.models.list(LOCAL)] == ["b", "a", "c"]
    assert {m.provider_id for m in store.models.list()} >= {LOCAL}
    assert [m.id for m in store.models.list() if m.provider_id == LOCAL] == ["b", "a", "c"]


def test_resolve_returns_a_stored_model_with_a_window_as_it_is(store: Store) -> None:
    _local(store)
    stored = store.models.upsert(model(context_window_size=32_000, max_output_tokens=2_000))
    assert store.models.resolve(LOCAL, "llama") == stored


def test_resolve_of_an_unknown_model_is_a_guess_never_stored(store: Store) -> None:
    _local(store)
    guessed = store.models.resolve(LOCAL, "mystery-model-x")
    assert (guessed.id, guessed.provider_id, guessed.source) == ("mystery-model-x", LOCAL, ModelSource.FETCHED)
    assert guessed.window_is_guess and not guessed.user_window and guessed.window_source is WindowSource.REGISTRY
    assert guessed.context_window_size is None or guessed.context_window_size > 0
    assert store.models.get(LOCAL, "mystery-model-x") is None


def test_resolve_of_a_stored_model_without_a_window_keeps_it_and_guesses_the_window(store: Store) -> None:
    _local(store)
    store.models.upsert(model("mystery-model-x", display_name="Mystery", max_output_tokens=1_000,
                              window_source=WindowSource.PROVIDER_API))
    resolved = store.models.resolve(LOCAL, "mystery-model-x")
    assert (resolved.display_name, resolved.max_output_tokens, resolved.window_is_guess) == ("Mystery", 1_000, True)
    assert resolved.window_source is WindowSource.REGISTRY


def test_store_fetched_adds_new_models_as_fetched(store: Store) -> None:
    _local(store)
    store.models.store_fetched(LOCAL, [model("new", display_name=None, context_window_size=32_000, is_default=True,
                                             source=ModelSource.USER, window_is_guess=True)])
    assert store.models.get(LOCAL, "new") == model("new", display_name=None, context_window_size=32_000,
                                                   source=ModelSource.FETCHED,
                                                   window_source=WindowSource.PROVIDER_API)


def test_store_fetched_updates_a_known_model_but_keeps_its_source_and_default_flag(store: Store) -> None:
    _local(store)
    store.models.upsert(model(is_default=True, source=ModelSource.PRESET, context_window_size=8_000,
                              max_output_tokens=1_000))
    store.models.store_fetched(LOCAL, [model(display_name="Llama 3", context_window_size=128_000,
                                             input_limit=100_000)])
    assert store.models.get(LOCAL, "llama") == model(display_name="Llama 3", is_default=True,
                                                     source=ModelSource.PRESET, context_window_size=128_000,
                                                     max_output_tokens=1_000, input_limit=100_000,
                                                     window_source=WindowSource.PROVIDER_API)
    store.models.store_fetched(LOCAL, [model(display_name=None)])
    kept = store.models.get(LOCAL, "llama")
    assert kept is not None and (kept.display_name, kept.context_window_size) == ("Llama 3", 128_000)


def test_store_fetched_keeps_what_the_list_says_the_model_takes(store: Store) -> None:
    _local(store)
    listed = ModelCapabilities(ThinkingForm.ADAPTIVE, efforts=("low", "high"), vision=True,
                               sources=(("thinking", CapabilitySource.PROVIDER_API),
                                        ("vision", CapabilitySource.PROVIDER_API)))
    store.models.store_fetched(LOCAL, [model("new", context_window_size=32_000, capabilities=listed)])
    assert store.models.get(LOCAL, "new").capabilities == listed  # type: ignore[union-attr]
    store.models.upsert(model(context_window_size=8_000))
    store.models.store_fetched(LOCAL, [model(capabilities=listed)])
    assert store.models.get(LOCAL, "llama").capabilities == listed  # type: ignore[union-attr]


def test_store_fetched_never_overwrites_a_user_window(store: Store) -> None:
    _local(store)
    store.models.set_user_window(LOCAL, "llama", 50_000, 4_000)
    store.models.store_fetched(LOCAL, [model(display_name="Llama (api)", context_window_size=128_000,
                                             max_output_tokens=8_000)])
    kept = store.models.get(LOCAL, "llama")
    assert kept is not None
    assert (kept.context_window_size, kept.max_output_tokens, kept.user_window) == (50_000, 4_000, True)
    assert kept.display_name == "Llama (api)"


def test_set_user_window_creates_a_user_model_or_overrides_a_known_one(store: Store) -> None:
    _local(store)
    created = store.models.set_user_window(LOCAL, "new", 16_000)
    assert created == AiModel(id="new", display_name=None, provider_id=LOCAL, source=ModelSource.USER,
                              context_window_size=16_000, user_window=True, window_source=WindowSource.USER)
    assert store.models.get(LOCAL, "new") == created
    store.models.upsert(model(context_window_size=8_000, max_output_tokens=1_000, window_is_guess=True))
    changed = store.models.set_user_window(LOCAL, "llama", 64_000)
    assert changed == model(context_window_size=64_000, max_output_tokens=1_000, user_window=True,
                            window_source=WindowSource.USER)


def test_upsert_keeps_a_user_window_unless_the_new_model_is_user_set(store: Store) -> None:
    _local(store)
    store.models.set_user_window(LOCAL, "llama", 30_000, 2_000)
    again = store.models.upsert(model(display_name="Renamed", context_window_size=128_000, max_output_tokens=9_000,
                                      window_is_guess=True))
    assert again == model(display_name="Renamed", context_window_size=30_000, max_output_tokens=2_000,
                          user_window=True, window_source=WindowSource.USER)
    assert store.models.get(LOCAL, "llama") == again
    user_again = store.models.upsert(model(context_window_size=20_000, user_window=True))
    assert user_again == model(context_window_size=20_000, user_window=True, window_source=WindowSource.USER)


def test_record_limit_learns_a_window_but_never_over_a_user_window(store: Store) -> None:
    _local(store)
    store.models.record_limit(LOCAL, "mystery", 32_768)
    assert store.models.get(LOCAL, "mystery") == AiModel(
        id="mystery", display_name=None, provider_id=LOCAL, source=ModelSource.FETCHED, context_window_size=32_768,
        window_source=WindowSource.LEARNED)
    store.models.upsert(model(context_window_size=8_000, window_is_guess=True))
    store.models.record_limit(LOCAL, "llama", 6_000)
    assert store.models.get(LOCAL, "llama") == model(context_window_size=6_000, window_source=WindowSource.LEARNED)
    store.models.set_user_window(LOCAL, "mystery", 16_000)
    store.models.record_limit(LOCAL, "mystery", 99_999)
    assert store.models.get(LOCAL, "mystery").context_window_size == 16_000  # type: ignore[union-attr]


def test_an_input_only_limit_is_learned_as_the_input_limit_and_the_window_stays(store: Store) -> None:
    _local(store)
    store.models.upsert(model(context_window_size=400_000, max_output_tokens=128_000))
    store.models.record_limit(LOCAL, "llama", 272_000, input_only=True)
    assert store.models.get(LOCAL, "llama") == model(context_window_size=400_000, max_output_tokens=128_000,
                                                     input_limit=272_000)
    store.models.record_limit(LOCAL, "fresh", 100_000, input_only=True)
    assert store.models.get(LOCAL, "fresh") == AiModel(id="fresh", display_name=None, provider_id=LOCAL,
                                                       source=ModelSource.FETCHED, input_limit=100_000)


def test_a_server_window_is_recorded_with_the_trained_length_but_never_over_a_user_window(store: Store) -> None:
    _local(store)
    store.models.upsert(model(context_window_size=131_072, max_output_tokens=8_192))
    recorded = store.models.record_server_window(LOCAL, "llama", 4_096, 131_072)
    assert recorded == model(context_window_size=4_096, window_source=WindowSource.SERVER, trained_window=131_072)
    assert store.models.get(LOCAL, "llama") == recorded  # an output limit above the loaded context is dropped
    store.models.set_user_window(LOCAL, "llama", 16_000)
    store.models.record_server_window(LOCAL, "llama", 2_048, 131_072)
    assert store.models.get(LOCAL, "llama").context_window_size == 16_000  # type: ignore[union-attr]


def test_a_listed_local_model_keeps_the_window_it_runs_with_and_its_trained_length(store: Store) -> None:
    _local(store)
    listed = AiModel(id="llama", display_name=None, provider_id=LOCAL, source=ModelSource.FETCHED,
                     context_window_size=4_096, trained_window=131_072)
    store.models.store_fetched(LOCAL, [listed])
    assert store.models.get(LOCAL, "llama") == replace(listed, window_source=WindowSource.SERVER)
    store.models.store_fetched(LOCAL, [replace(listed, context_window_size=8_192)])
    assert store.models.get(LOCAL, "llama") == replace(listed, context_window_size=8_192,
                                                       window_source=WindowSource.SERVER)


@pytest.mark.parametrize(("window", "max_output"), [(0, None), (-5, None), (1000, 0), (1000, 1000)])
def test_nonsensical_windows_are_refused_and_change_nothing(
    store: Store, window: int, max_output: int | None
) -> None:
    _local(store)
    stored = store.models.upsert(model(context_window_size=8_000))
    with pytest.raises(InvalidInput):
        store.models.set_user_window(LOCAL, "llama", window, max_output)
    with pytest.raises(InvalidInput):
        store.models.upsert(model(context_window_size=window, max_output_tokens=max_output))
    assert store.models.get(LOCAL, "llama") == stored


def test_a_nonsensical_learned_limit_is_refused(store: Store) -> None:
    _local(store)
    with pytest.raises(InvalidInput):
        store.models.record_limit(LOCAL, "llama", 0)
    assert store.models.get(LOCAL, "llama") is None


@pytest.mark.parametrize("write", [
    lambda s: s.models.upsert(model(provider_id="ghost")),
    lambda s: s.models.store_fetched("ghost", [model(provider_id="ghost")]),
    lambda s: s.models.set_user_window("ghost", "m", 1000),
    lambda s: s.models.record_limit("ghost", "m", 1000),
], ids=["upsert", "store_fetched", "set_user_window", "record_limit"])
def test_models_of_an_unknown_provider_are_not_found(store: Store, write: Callable[[Store], object]) -> None:
    with pytest.raises(NotFound):
        write(store)
    assert store.models.list("ghost") == []


@pytest.mark.parametrize("set_window", ["user", "learned", "guessed"])
def test_clear_window_returns_a_user_learned_or_guessed_window_to_its_automatic_source(
        store: Store, set_window: str) -> None:
    _local(store)
    store.models.upsert(model(max_output_tokens=2_000, window_source=WindowSource.PROVIDER_API,
                              context_window_size=32_000))
    if set_window == "user":
        store.models.set_user_window(LOCAL, "llama", 16_000)
    else:
        store.models.record_limit(LOCAL, "llama", 4_140, source=WindowSource.LEARNED if set_window == "learned"
                                  else WindowSource.GUESSED)
    store.models.clear_window(LOCAL, "llama")
    stored = store.models.get(LOCAL, "llama")
    assert stored is not None and stored.context_window_size is None and not stored.user_window
    assert (stored.display_name, stored.max_output_tokens) == ("Llama", 2_000)  # the rest of the model stays
    resolved = store.models.resolve(LOCAL, "llama")
    assert resolved.window_source is WindowSource.REGISTRY and resolved.window_is_guess
    store.models.store_fetched(LOCAL, [model(context_window_size=32_000)])  # the next list reading sets it again
    assert store.models.resolve(LOCAL, "llama").context_window_size == 32_000


def test_clear_window_keeps_a_window_the_provider_or_a_server_reported(store: Store) -> None:
    _local(store)
    listed = store.models.upsert(model(context_window_size=32_000, window_source=WindowSource.PROVIDER_API))
    served = store.models.record_server_window(LOCAL, "qwen", 8_192, trained=32_768)
    store.models.clear_window(LOCAL, "llama")
    store.models.clear_window(LOCAL, "qwen")
    store.models.clear_window(LOCAL, "never-stored")
    assert store.models.get(LOCAL, "llama") == listed and store.models.get(LOCAL, "qwen") == served
    assert store.models.get(LOCAL, "never-stored") is None
    with pytest.raises(NotFound):
        store.models.clear_window("no-such-provider", "llama")
