"""Provider, model and key use cases: list, base URL, add OpenAI-compatible, models, keys never shown."""

from __future__ import annotations

import pytest

from domain.errors import InvalidInput, KeychainUnavailable, NotFound
from domain.models import AiModel, ModelSource, Provider, ProviderType
from domain.services.adapters import ProviderAdapters
from domain.usecases.add_model import AddModelUseCase
from domain.usecases.add_provider import AddProviderUseCase
from domain.usecases.api_key_status import ApiKeyStatusUseCase
from domain.usecases.delete_api_key import DeleteApiKeyUseCase
from domain.usecases.list_models import ListModelsUseCase
from domain.usecases.list_providers import ListProvidersUseCase
from domain.usecases.refresh_models import RefreshModelsUseCase
from domain.usecases.set_api_key import SetApiKeyUseCase
from domain.usecases.set_provider_base_url import SetProviderBaseUrlUseCase
from tests.fakes import FakeApiKeyStorage, FakeModelRepository, FakeProviderRepository


def providers() -> FakeProviderRepository:
    return FakeProviderRepository([
        Provider("anthropic", "Anthropic", ProviderType.ANTHROPIC),
        Provider("openai", "OpenAI", ProviderType.OPENAI),
        Provider("gemini", "Google Gemini", ProviderType.GEMINI),
    ])


def test_base_url_is_set_by_provider_name_and_cleared_back_to_the_default() -> None:
    repo = providers()
    use = SetProviderBaseUrlUseCase(repo)
    assert use("openai", " http://127.0.0.1:9/v1/ ").base_url == "http://127.0.0.1:9/v1"
    assert use("OpenAI", None).base_url is None


def test_a_bad_base_url_or_unknown_provider_is_refused_with_a_clear_error() -> None:
    use = SetProviderBaseUrlUseCase(providers())
    with pytest.raises(InvalidInput, match="not a base URL"):
        use("openai", "localhost:11434")
    with pytest.raises(NotFound, match="Known providers: anthropic, openai, gemini"):
        use("mistral", "http://x")


def test_an_openai_compatible_provider_is_added_with_an_id_from_its_name() -> None:
    repo = providers()
    added = AddProviderUseCase(repo)("Local Ollama", "http://127.0.0.1:11434/v1")
    assert (added.id, added.type, added.base_url) == ("local-ollama", ProviderType.OPENAI_COMPATIBLE,
                                                      "http://127.0.0.1:11434/v1")
    with pytest.raises(InvalidInput, match="already exists"):
        AddProviderUseCase(repo)("local ollama", "http://127.0.0.1:1/v1")
    with pytest.raises(InvalidInput, match="openai_compatible"):
        AddProviderUseCase(repo)("Other", "http://x", "anthropic")
    with pytest.raises(InvalidInput):
        SetProviderBaseUrlUseCase(repo)("local-ollama", None)


def test_add_model_registers_a_user_model_and_sets_a_user_window_on_a_known_one() -> None:
    models = FakeModelRepository([AiModel("gpt-4o", "GPT-4o", "openai", context_window_size=128_000)])
    add = AddModelUseCase(providers(), models)
    small = add("openai", "tiny-8k", 8192, max_output=1024)
    assert (small.source, small.context_window_size, small.user_window) == (ModelSource.USER, 8192, True)
    assert add("openai", "gpt-4o", 16_000).context_window_size == 16_000
    assert models.get("openai", "gpt-4o").user_window  # type: ignore[union-attr]
    for bad in (lambda: add("openai", "x", 10), lambda: add("openai", "has space", 8192),
                lambda: add("openai", "x", 8192, max_output=9000)):
        with pytest.raises(InvalidInput):
            bad()


def test_list_models_filters_by_provider_name() -> None:
    models = FakeModelRepository([AiModel("a", None, "openai"), AiModel("b", None, "gemini")])
    use = ListModelsUseCase(providers(), models)
    assert [m.id for m in use("Google Gemini")] == ["b"]
    assert len(use()) == 2


async def test_refresh_stores_fetched_models_keeping_a_user_window() -> None:
    class Adapter:
        async def list_models(self) -> list[AiModel]:
            return [AiModel("m1", None, "openai", context_window_size=100_000)]

    class Factory:
        seen_key: str | None = None

        def create(self, provider: Provider, api_key: str | None) -> Adapter:
            Factory.seen_key = api_key
            return Adapter()

    models = FakeModelRepository()
    keys = FakeApiKeyStorage({"openai": "sk-env"})
    AddModelUseCase(providers(), models)("openai", "m1", 8192)
    listed = await RefreshModelsUseCase(providers(), models, ProviderAdapters(providers(), keys, Factory()))(  # type: ignore[arg-type]
        "openai"
    )
    assert [(m.id, m.context_window_size) for m in listed] == [("m1", 8192)]
    assert Factory.seen_key == "sk-env"


def test_keys_are_set_deleted_and_reported_by_source_only() -> None:
    repo, keys = providers(), FakeApiKeyStorage({"gemini": "env-key"})
    SetApiKeyUseCase(repo, keys)("Anthropic", "  sk-ant-123  ")
    assert keys.keys == {"anthropic": "sk-ant-123"}
    report = ApiKeyStatusUseCase(repo, keys)()
    assert [(s.provider.id, s.source) for s in report.statuses] == [
        ("anthropic", "keychain"), ("openai", None), ("gemini", "environment")]
    assert "sk-ant" not in repr(report)
    DeleteApiKeyUseCase(repo, keys)("anthropic")
    assert keys.keys == {}
    assert [(p.provider.id, p.key_source) for p in ListProvidersUseCase(repo, keys)()][2] == ("gemini", "environment")


def test_blank_keys_and_a_missing_keychain_are_clear_errors() -> None:
    with pytest.raises(InvalidInput, match="empty"):
        SetApiKeyUseCase(providers(), FakeApiKeyStorage())("openai", "\n")
    with pytest.raises(KeychainUnavailable):
        SetApiKeyUseCase(providers(), FakeApiKeyStorage(keychain_broken="no D-Bus"))("openai", "sk-1")
