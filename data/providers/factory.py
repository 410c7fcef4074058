"""Builds the SDK adapter for a provider row: its type, key and base URL (row first, then the environment)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from data.attachments.media import MediaSource
from data.providers.base import CONNECT_TIMEOUT_S, SdkAdapter, headers_arrived
from data.providers.errors import WEB_PAGE_HOOKS
from data.providers.probe_store import ProbeStore
from data.providers.retry import RetryPolicy
from data.providers.sdk_import import http_client, import_sdk
from domain.errors import AuthenticationFailed, InvalidInput
from domain.models import Provider, ProviderApi, ProviderType

if TYPE_CHECKING:  # each SDK is imported only when a provider of its type is used (start-up of the CLI)
    from data.providers.openai_adapter import OpenAIAdapter

BASE_URL_VARIABLES: Mapping[ProviderType, str] = {
    ProviderType.ANTHROPIC: "ANTHROPIC_BASE_URL",
    ProviderType.OPENAI: "OPENAI_BASE_URL",
    ProviderType.GEMINI: "GOOGLE_GEMINI_BASE_URL",
}
GEMINI_API_VERSION = "v1beta"
LOCAL_PLACEHOLDER_KEY = "not-needed"
OPENAI_HOST = "api.openai.com"  # local OpenAI-compatible servers (Ollama, LM Studio) ignore the key


def uses_responses(api: ProviderApi, base_url: str) -> bool:
    """Whether a provider speaks the Responses API: as set, or (auto) when its base URL is OpenAI's own."""
    if api is not ProviderApi.AUTO:
        return api is ProviderApi.RESPONSES
    host = (urlsplit(base_url).hostname or "").lower()
    return host == OPENAI_HOST


def event_hooks() -> dict[str, list[Any]]:
    """The httpx event hooks of every SDK client: the headers deadline is lifted as the response headers arrive,
    then an HTML answer is refused."""
    return {**WEB_PAGE_HOOKS, "response": [headers_arrived, *WEB_PAGE_HOOKS["response"]]}


def connect_capped_transport(httpx_module: Any, connect_s: float) -> Any:
    """An httpx transport that waits at most `connect_s` for a connection, whatever single timeout the SDK passes
    for the request (google-genai gives httpx one number for every phase)."""

    class ConnectCapped(httpx_module.AsyncHTTPTransport):
        async def handle_async_request(self, request: Any) -> Any:
            timeout = dict(request.extensions.get("timeout") or {})
            current = timeout.get("connect")
            timeout["connect"] = connect_s if current is None else min(current, connect_s)
            request.extensions["timeout"] = timeout
            return await super().handle_async_request(request)

    return ConnectCapped()


class SdkAdapterFactory:
    """Implements ModelApiAdapterFactory over anthropic, openai and google-genai; SDK retries off, ours on.

    The anthropic and openai clients send through the SDKs' aiohttp transport (their `aiohttp` extra): it reads a
    streamed reply with less CPU than the default httpx transport (bench.replay_phases, its socket reads counted:
    7.9 ms a turn on httpx, 5.7-7.0 on aiohttp). The
    google-genai client stays on httpx: its own aiohttp path would bypass the event hooks. An adapter's client owns
    connections of the event loop that first used it: `aclose` it there when done. With `aiohttp=False` (a process
    that runs one command) they send over httpx and the SDKs are imported without aiohttp (see sdk_import).

    `timeout` is the clients' own HTTP timeout (model lists, titles, summaries); a chat stream sent with deadlines
    sets its own per request, above them (see base.read_timeout)."""

    def __init__(
        self,
        max_retries: int = 2,
        timeout: float = 120.0,
        env: Mapping[str, str] | None = None,
        retry: RetryPolicy | None = None,
        media: MediaSource | None = None,
        probes: ProbeStore | None = None,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        aiohttp: bool = True,
    ) -> None:
        self._aiohttp = aiohttp
        self._retry = retry or RetryPolicy(max_retries=max_retries)
        self._connect_timeout = connect_timeout
        self._media = media
        self._probes = probes  # what OpenAI-compatible servers answered to window probes (None: each adapter's own)
        self._timeout = timeout
        self._env = env

    def base_url(self, provider: Provider) -> str | None:
        """The row's base URL, else the provider type's environment variable, else None (the SDK default)."""
        if provider.base_url and provider.base_url.strip():
            return provider.base_url.strip()
        variable = BASE_URL_VARIABLES.get(provider.type)
        env = self._env if self._env is not None else os.environ
        value = env.get(variable, "").strip() if variable else ""
        return value or None

    def create(self, provider: Provider, api_key: str | None) -> SdkAdapter:
        """The adapter for the provider; raises AuthenticationFailed when a hosted provider has no key."""
        adapter = self._create(provider, api_key)
        adapter.media = self._media
        adapter.connect_timeout = self._connect_timeout
        return adapter

    def _create(self, provider: Provider, api_key: str | None) -> SdkAdapter:
        base_url = self.base_url(provider)
        key = (api_key or "").strip() or None
        if provider.type is ProviderType.OPENAI_COMPATIBLE:
            if not base_url:
                raise InvalidInput(f"The provider {provider.name!r} needs a base URL (for example http://localhost:11434/v1).")
            return self._openai(provider, key or LOCAL_PLACEHOLDER_KEY, base_url, compatible=True)
        if key is None:
            raise AuthenticationFailed(provider.name, missing=True)
        if provider.type is ProviderType.ANTHROPIC:
            anthropic = import_sdk("anthropic", aiohttp=self._aiohttp)

            from data.providers.anthropic_adapter import AnthropicAdapter

            client = anthropic.AsyncAnthropic(
                api_key=key, base_url=base_url, max_retries=0,
                timeout=anthropic.Timeout(self._timeout, connect=self._connect_timeout),
                http_client=http_client(anthropic, event_hooks(), aiohttp=self._aiohttp),
            )
            return AnthropicAdapter(
                client, provider_id=provider.id, provider_name=provider.name, retry=self._retry, secret=key
            )
        if provider.type is ProviderType.OPENAI:
            return self._openai(provider, key, base_url, compatible=False)
        if provider.type is ProviderType.GEMINI:
            import httpx2

            import_sdk("google.genai", aiohttp=self._aiohttp)
            from google import genai
            from google.genai import types

            from data.providers.gemini_adapter import GeminiAdapter

            # the transport pins httpx: with aiohttp importable, google-genai would switch to it and drop the hooks
            options = types.HttpOptions(
                api_version=GEMINI_API_VERSION, timeout=int(self._timeout * 1000),
                async_client_args={"event_hooks": event_hooks(),
                                   "transport": connect_capped_transport(httpx2, self._connect_timeout)},
            )
            if base_url:
                options.base_url = base_url
            gemini = genai.Client(api_key=key, vertexai=False, http_options=options)
            return GeminiAdapter(
                gemini, provider_id=provider.id, provider_name=provider.name, retry=self._retry, secret=key
            )
        raise InvalidInput(f"Unknown provider type {provider.type!r}.")

    def _openai(self, provider: Provider, key: str, base_url: str | None, *, compatible: bool) -> OpenAIAdapter:
        openai = import_sdk("openai", aiohttp=self._aiohttp)

        from data.providers.openai_adapter import OpenAIAdapter
        from data.providers.responses_adapter import ResponsesAdapter

        client = openai.AsyncOpenAI(api_key=key, base_url=base_url, max_retries=0,
                                    timeout=openai.Timeout(self._timeout, connect=self._connect_timeout),
                                    http_client=http_client(openai, event_hooks(), aiohttp=self._aiohttp))
        kind = ResponsesAdapter if uses_responses(provider.api, str(client.base_url)) else OpenAIAdapter
        return kind(
            client,
            provider_id=provider.id,
            provider_name=provider.name,
            retry=self._retry,
            secret=key,
            compatible=compatible,
            probes=self._probes,
        )
