"""Add provider: a new OpenAI-compatible endpoint (Ollama, LM Studio, OpenRouter, vLLM) with its own base URL."""

from __future__ import annotations

import re

from domain.errors import InvalidInput
from domain.models import Provider, ProviderType
from domain.ports import ProviderRepository
from domain.usecases.base_url import clean_base_url

MAX_NAME_CHARS = 60


def provider_id_for(name: str) -> str:
    """A stable id from a display name: lower case, runs of other characters made single dashes."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


class AddProviderUseCase:
    """Adds an OpenAI-compatible provider; the three vendors are built in and cannot be added again."""

    def __init__(self, providers: ProviderRepository) -> None:
        self._providers = providers

    def __call__(self, name: str, base_url: str, provider_type: str = ProviderType.OPENAI_COMPATIBLE.value) -> Provider:
        """The stored provider; InvalidInput for another type, a bad name or URL, or a name already taken."""
        if provider_type != ProviderType.OPENAI_COMPATIBLE.value:
            raise InvalidInput(
                f"Only providers of type openai_compatible can be added (got {provider_type!r}); "
                "anthropic, openai and gemini are built in."
            )
        clean = " ".join(name.split())
        ident = provider_id_for(clean)
        if not ident or len(clean) > MAX_NAME_CHARS:
            raise InvalidInput(f"{name!r} is not a usable provider name; use letters and digits (at most 60).")
        url = clean_base_url(base_url)
        if self._providers.find(clean) is not None or self._providers.get(ident) is not None:
            raise InvalidInput(f"A provider named {clean!r} already exists; choose another name.")
        return self._providers.add(Provider(id=ident, name=clean, type=ProviderType.OPENAI_COMPATIBLE, base_url=url))
