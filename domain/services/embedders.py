"""The embedder an agent's document searches use: its settings (app-wide, then the agent's) name the provider and
model; the provider's key is read as for chat (keychain, then environment)."""

from __future__ import annotations

from collections.abc import Mapping

from domain.errors import InvalidInput
from domain.models import AgentId, Provider, ProviderType
from domain.ports import AgentRepository, ApiKeyStorage, ProviderRepository, SettingsRepository
from domain.semantic import Embedder, EmbedderFactory

DEFAULT_EMBEDDING_MODELS: Mapping[ProviderType, str] = {
    ProviderType.OPENAI: "text-embedding-3-small",
    ProviderType.GEMINI: "gemini-embedding-001",
}


def embedding_choice(setting: str | None, providers: ProviderRepository) -> tuple[Provider, str]:
    """The provider and model a setting ("PROVIDER", "PROVIDER/MODEL" or None: the first OpenAI or Gemini provider)
    names; InvalidInput saying what to do when none fits."""
    name, _, model = (setting or "").strip().partition("/")
    if name:
        provider = providers.find(name)
        if provider is None:
            raise InvalidInput(f"Semantic search: no provider named {name!r} (embedding_model is {setting!r}).")
    else:
        usable = [p for p in providers.list() if p.is_active and p.type in DEFAULT_EMBEDDING_MODELS]
        if not usable:
            raise InvalidInput("Semantic search is on but no OpenAI or Gemini provider is set up to embed passages; "
                               "add one, or set embedding_model=PROVIDER/MODEL.")
        provider = usable[0]
    if provider.type is ProviderType.ANTHROPIC:
        raise InvalidInput(f"Semantic search: {provider.name} (Anthropic) has no embeddings; use an OpenAI or "
                           "Gemini provider.")
    model = model.strip() or DEFAULT_EMBEDDING_MODELS.get(provider.type, "")
    if not model:
        raise InvalidInput(f"Semantic search: name the embedding model of {provider.name} "
                           f"(embedding_model={provider.name}/MODEL).")
    return provider, model


class SemanticEmbedders:
    """Implements EmbedderSource: None where the agent's semantic search is off, else its (reused) embedder."""

    def __init__(self, settings: SettingsRepository, agents: AgentRepository, providers: ProviderRepository,
                 keys: ApiKeyStorage, factory: EmbedderFactory) -> None:
        self._settings = settings
        self._agents = agents
        self._providers = providers
        self._keys = keys
        self._factory = factory
        self._made: dict[tuple[object, ...], Embedder] = {}

    def for_agent(self, agent_id: AgentId | None) -> Embedder | None:
        settings = self._settings.context_settings()
        agent = self._agents.get(agent_id) if agent_id else None
        if agent is not None:
            settings = settings.with_overrides(agent.context_overrides)
        if not settings.semantic_search:
            return None
        provider, model = embedding_choice(settings.embedding_model, self._providers)
        key = self._keys.get(provider.id)
        made_key = (provider, model, key)
        if made_key not in self._made:
            self._made[made_key] = self._factory.create(provider, key, model)
        return self._made[made_key]
