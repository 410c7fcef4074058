"""ProviderRepository contract: the built-in three first, lookups by id or name, validated URLs, no duplicates."""

from __future__ import annotations

import pytest

from domain.errors import InvalidInput, NotFound
from domain.models import Provider, ProviderType
from tests.contracts.conftest import Store

OLLAMA = Provider(id="ollama", name="Ollama", type=ProviderType.OPENAI_COMPATIBLE, base_url="http://localhost:11434/v1")


def test_a_new_store_has_the_three_built_in_providers_in_order(store: Store) -> None:
    assert [(p.id, p.type) for p in store.providers.list()] == [
        ("anthropic", ProviderType.ANTHROPIC), ("openai", ProviderType.OPENAI), ("gemini", ProviderType.GEMINI)]


def test_added_providers_follow_the_built_in_ones_by_name(store: Store) -> None:
    store.providers.add(Provider(id="zz", name="zeta", type=ProviderType.OPENAI_COMPATIBLE,
                                 base_url="https://zeta.example/v1"))
    store.providers.add(OLLAMA)
    store.providers.add(Provider(id="aa", name="LM Studio", type=ProviderType.OPENAI_COMPATIBLE,
                                 base_url="http://localhost:1234/v1"))
    assert [p.id for p in store.providers.list()] == ["anthropic", "openai", "gemini", "aa", "ollama", "zz"]


def test_a_provider_is_found_by_id_or_by_name_in_any_case(store: Store) -> None:
    assert store.providers.add(OLLAMA) == OLLAMA
    assert store.providers.get("ollama") == OLLAMA
    assert store.providers.find("ollama") == OLLAMA
    assert store.providers.find("OLLAMA") == OLLAMA
    assert store.providers.find(" ollama ") == OLLAMA
    assert store.providers.find("nobody") is None
    assert store.providers.get("Ollama") is None


def test_the_name_is_stored_without_surrounding_blanks(store: Store) -> None:
    store.providers.add(Provider(id="lm", name="  LM Studio ", type=ProviderType.OPENAI_COMPATIBLE,
                                 base_url="http://localhost:1234/v1"))
    assert store.providers.get("lm").name == "LM Studio"  # type: ignore[union-attr]


@pytest.mark.parametrize("url", [None, "localhost:11434", "ftp://x", ""])
def test_a_compatible_provider_needs_an_http_base_url(store: Store, url: str | None) -> None:
    with pytest.raises(InvalidInput):
        store.providers.add(Provider(id="bad", name="Bad", type=ProviderType.OPENAI_COMPATIBLE, base_url=url))
    assert store.providers.get("bad") is None


@pytest.mark.parametrize(("pid", "name"), [("", "Name"), ("id", "  ")])
def test_a_provider_needs_an_id_and_a_name(store: Store, pid: str, name: str) -> None:
    with pytest.raises(InvalidInput):
        store.providers.add(Provider(id=pid, name=name, type=ProviderType.OPENAI))
    assert len(store.providers.list()) == 3


def test_a_duplicate_provider_id_is_refused_and_the_first_is_kept(store: Store) -> None:
    with pytest.raises(InvalidInput):
        store.providers.add(Provider(id="openai", name="Again", type=ProviderType.OPENAI))
    assert store.providers.get("openai").name == "OpenAI"  # type: ignore[union-attr]


def test_update_writes_every_field(store: Store) -> None:
    changed = Provider(id="openai", name="OpenRouter", type=ProviderType.OPENAI_COMPATIBLE,
                       base_url="https://openrouter.ai/api/v1", is_active=False)
    assert store.providers.update(changed) == changed
    assert store.providers.get("openai") == changed


def test_update_validates_like_add_and_changes_nothing_when_refused(store: Store) -> None:
    before = store.providers.get("openai")
    with pytest.raises(InvalidInput):
        store.providers.update(Provider(id="openai", name="OpenAI", type=ProviderType.OPENAI, base_url="ftp://x"))
    assert store.providers.get("openai") == before


def test_update_of_a_missing_provider_is_not_found(store: Store) -> None:
    with pytest.raises(NotFound):
        store.providers.update(Provider(id="ghost", name="G", type=ProviderType.OPENAI))
    assert store.providers.get("ghost") is None
