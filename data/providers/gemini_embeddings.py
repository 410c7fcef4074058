"""Passages embedded by a Gemini embedding model through google-genai (models/{m}:batchEmbedContents), at most
GEMINI_MAX_REQUESTS texts a request; passages as RETRIEVAL_DOCUMENT, searches as RETRIEVAL_QUERY."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import httpx2
from google import genai
from google.genai import types

from data.providers.base import CONNECT_TIMEOUT_S
from data.providers.embedder_base import EmbedderConfig
from data.providers.factory import connect_capped_transport
from data.providers.gemini_errors import map_gemini_error

GEMINI_MAX_REQUESTS = 100  # batchEmbedContents refuses more ("at most 100 requests can be in one batch")
GEMINI_API_VERSION = "v1beta"


class GeminiEmbedder(EmbedderConfig):
    """Implements domain.semantic.Embedder; a client per call (its connections belong to the calling event loop)."""

    max_batch = GEMINI_MAX_REQUESTS

    async def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        """One vector per text, in order."""
        # an httpx transport, as for chat (data/providers/factory.py): with aiohttp importable the SDK would switch
        options = types.HttpOptions(api_version=GEMINI_API_VERSION, timeout=int(self._timeout * 1000),
                                    async_client_args={"transport": connect_capped_transport(httpx2,
                                                                                             CONNECT_TIMEOUT_S)})
        if self._base_url:
            options.base_url = self._base_url
        client = genai.Client(api_key=self._api_key, vertexai=False, http_options=options)
        task = "RETRIEVAL_QUERY" if query else "RETRIEVAL_DOCUMENT"
        try:
            response = await client.aio.models.embed_content(
                model=self._model, contents=cast(Any, list(texts)), config=types.EmbedContentConfig(task_type=task))
        except Exception as exc:
            raise map_gemini_error(exc, self._name, self._base_url) from exc
        finally:
            await client.aio.aclose()
        return [list(item.values or []) for item in response.embeddings or []]
