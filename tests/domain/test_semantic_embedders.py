"""Which embedder an agent's searches use: none unless semantic search is on (app-wide or for the agent), then the
provider and model its setting names, or the first OpenAI or Gemini provider with its default model; settings that
cannot embed say what to do."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from domain.errors import InvalidInput
from domain.models import Agent, Provider, ProviderType
from domain.services.embedders import SemanticEmbedders, embedding_choice
from domain.settings import ContextSettings
from tests.fakes_config import FakeAgentRepository, FakeApiKeyStorage, FakeProviderRepository, FakeSettingsRepository

PROVIDERS = FakeProviderRepository([Provider("anthropic", "Anthropic", ProviderType.ANTHROPIC),
                                    Provider("gemini", "Gemini", ProviderType.GEMINI),
                                    Provider("local", "Ollama", ProviderType.OPENAI_COMPATIBLE, "http://x/v1")])


@dataclass
class MadeEmbedder:
    key: str
    max_batch: int = 100

    async def embed(self, texts: object, *, query: bool = False) -> list[list[float]]:
        raise AssertionError("not called here")


class RecordingFactory:
    def __init__(self) -> None:
        self.made: list[tuple[str, str | None, str]] = []

    def create(self, provider: Provider, api_key: str | None, model: str) -> MadeEmbedder:
        self.made.append((provider.id, api_key, model))
        return MadeEmbedder(f"{provider.id}/{model}")


def test_off_unless_turned_on_then_the_agents_choice_over_the_apps_and_made_once() -> None:
    agents = FakeAgentRepository([Agent("a1", "Sailor", context_overrides={"semantic_search": True}),
                                  Agent("a2", "Cook")])
    factory = RecordingFactory()
    keys = FakeApiKeyStorage({"gemini": "g-key"})
    source = SemanticEmbedders(FakeSettingsRepository(), agents, PROVIDERS, keys, factory)
    assert source.for_agent("a2") is None and source.for_agent(None) is None  # off: nothing is made
    first, again = source.for_agent("a1"), source.for_agent("a1")
    assert first is not None and first is again and first.key == "gemini/gemini-embedding-001"
    assert factory.made == [("gemini", "g-key", "gemini-embedding-001")]
    everyone = SemanticEmbedders(FakeSettingsRepository(ContextSettings(semantic_search=True,
                                                                        embedding_model="Ollama/nomic-embed-text")),
                                 agents, PROVIDERS, keys, factory)
    made = everyone.for_agent("a2")
    assert made is not None and made.key == "local/nomic-embed-text"


def test_settings_that_cannot_embed_say_what_to_do() -> None:
    with pytest.raises(InvalidInput, match="no provider named 'openai'"):
        embedding_choice("openai/text-embedding-3-small", PROVIDERS)
    with pytest.raises(InvalidInput, match=r"Anthropic.*has no embeddings"):
        embedding_choice("Anthropic", PROVIDERS)
    with pytest.raises(InvalidInput, match="name the embedding model of Ollama"):
        embedding_choice("Ollama", PROVIDERS)
    with pytest.raises(InvalidInput, match="no OpenAI or Gemini provider"):
        embedding_choice(None, FakeProviderRepository([Provider("anthropic", "Anthropic", ProviderType.ANTHROPIC)]))
