"""Builds the embedder of a provider's model (domain.semantic.EmbedderFactory): OpenAI and OpenAI-compatible servers
through openai, Gemini through google-genai, each SDK imported only when semantic search first needs it."""

from __future__ import annotations

from collections.abc import Mapping

from data.providers.factory import LOCAL_PLACEHOLDER_KEY, SdkAdapterFactory
from domain.errors import AuthenticationFailed, InvalidInput
from domain.models import Provider, ProviderType
from domain.semantic import Embedder


class SdkEmbedderFactory:
    """Implements EmbedderFactory; the base URL is the provider's, else its type's environment variable."""

    def __init__(self, env: Mapping[str, str] | None = None, timeout: float = 120.0) -> None:
        self._urls = SdkAdapterFactory(env=env)
        self._timeout = timeout

    def create(self, provider: Provider, api_key: str | None, model: str) -> Embedder:
        base_url = self._urls.base_url(provider)
        key = (api_key or "").strip() or None
        if provider.type is ProviderType.OPENAI_COMPATIBLE:
            if not base_url:
                raise InvalidInput(f"The provider {provider.name!r} needs a base URL to embed passages.")
            key = key or LOCAL_PLACEHOLDER_KEY
        if key is None:
            raise AuthenticationFailed(provider.name, missing=True)
        if provider.type in (ProviderType.OPENAI, ProviderType.OPENAI_COMPATIBLE):
            from data.providers.openai_embeddings import OpenAIEmbedder

            return OpenAIEmbedder(provider_name=provider.name, api_key=key, base_url=base_url, model=model,
                                  timeout=self._timeout, provider_id=provider.id)
        if provider.type is ProviderType.GEMINI:
            from data.providers.gemini_embeddings import GeminiEmbedder

            return GeminiEmbedder(provider_name=provider.name, api_key=key, base_url=base_url, model=model,
                                  timeout=self._timeout, provider_id=provider.id)
        raise InvalidInput(f"{provider.name} offers no embeddings; semantic search needs an OpenAI or Gemini provider.")
