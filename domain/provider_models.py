"""Providers and their models as configured: the provider's type and API, a model's window and where that figure
came from, and what a server says of the context it runs a model with (re-exported by domain.models)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from urllib.parse import urlsplit

from domain.capabilities import ModelCapabilities

ProviderId = str


ModelId = str


class ProviderType(StrEnum):
    """The wire protocol family a provider speaks."""

    ANTHROPIC = "anthropic"
    OPENAI = "openai"
    GEMINI = "gemini"
    OPENAI_COMPATIBLE = "openai_compatible"


class ProviderApi(StrEnum):
    """Which OpenAI API an OpenAI-type provider speaks: auto = Responses on api.openai.com, else Chat Completions."""

    AUTO = "auto"
    RESPONSES = "responses"
    CHAT_COMPLETIONS = "chat_completions"

    @classmethod
    def stored(cls, value: str | None) -> ProviderApi:
        """The stored choice (NULL, or a value a newer Palimpsest wrote: auto)."""
        try:
            return cls(value) if value else cls.AUTO
        except ValueError:
            return cls.AUTO


class ModelSource(StrEnum):
    """Where a model row came from: the shipped registry, the provider's list, or the user."""

    PRESET = "preset"
    FETCHED = "fetched"
    USER = "user"


class WindowSource(StrEnum):
    """Where a model's context window comes from (the CLI contract's `window_source` values)."""

    REGISTRY = "registry"
    PROVIDER_API = "provider_api"
    LEARNED = "learned_from_error"
    USER = "user"
    SERVER = "server"
    GUESSED = "guessed_from_usage"  # a server's reported prompt sizes plateaued below the estimate (never an error)


@dataclass(frozen=True)
class Provider:
    """A configured endpoint: one of the three vendors or any OpenAI-compatible server."""

    id: ProviderId
    name: str
    type: ProviderType
    base_url: str | None = None
    is_active: bool = True
    api: ProviderApi = ProviderApi.AUTO  # OpenAI and OpenAI-compatible providers only


OPENAI_API_HOST = "api.openai.com"


def speaks_responses(provider: Provider) -> bool:
    """Whether an OpenAI(-compatible) provider's adapter speaks the Responses API: as set, or (auto) when its base URL
    is OpenAI's own (no base URL: the SDK's default, OpenAI's), as the adapter factory decides."""
    if provider.type not in (ProviderType.OPENAI, ProviderType.OPENAI_COMPATIBLE):
        return False
    if provider.api is not ProviderApi.AUTO:
        return provider.api is ProviderApi.RESPONSES
    host = urlsplit(provider.base_url).hostname if provider.base_url else OPENAI_API_HOST
    return (host or "").lower() == OPENAI_API_HOST


@dataclass(frozen=True)
class Retirement:
    """The day a vendor stops serving a model (its API refuses it from then on) and the model it names instead."""

    on: date
    successor: ModelId | None = None
    successor_name: str | None = None  # the successor's display name, where the registry has one

    def passed(self, today: date) -> bool:
        """Whether the day has come (the model is retired, not retiring)."""
        return self.on <= today


@dataclass(frozen=True)
class AiModel:
    """A model of a provider with the context window Palimpsest manages against."""

    id: ModelId
    display_name: str | None
    provider_id: ProviderId
    is_default: bool = False
    source: ModelSource = ModelSource.PRESET
    context_window_size: int | None = None
    max_output_tokens: int | None = None
    window_is_guess: bool = False
    user_window: bool = False
    window_source: WindowSource = WindowSource.REGISTRY
    input_limit: int | None = None
    capabilities: ModelCapabilities | None = None  # None: not known (nothing assumed)
    trained_window: int | None = None  # a local server's model: the length it was trained for (the window: loaded)
    retirement: Retirement | None = None  # announced by its vendor (its own model list, else the registry), or None


@dataclass(frozen=True)
class ServerWindow:
    """What an OpenAI-compatible server says about a model's context: the length it runs the model with (a local
    server's loaded context, which it cuts longer requests to silently; source `server`) or the window its model list
    states (vLLM, LiteLLM, OpenRouter, Together, Fireworks, Groq, Mistral; source `provider_api`), the length the
    model was trained for when it says, and the input limit when the list names one apart from the window."""

    server: str
    loaded: int
    trained: int | None = None
    source: WindowSource = WindowSource.SERVER
    input_limit: int | None = None

    @property
    def short(self) -> bool:
        """Whether the server runs the model with less context than it was trained for."""
        return self.trained is not None and self.loaded < self.trained
