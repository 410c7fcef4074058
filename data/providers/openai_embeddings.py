"""Passages embedded by an OpenAI (or OpenAI-compatible) embedding model through the openai SDK: POST /v1/embeddings,
at most OPENAI_MAX_INPUTS texts a request."""

from __future__ import annotations

from collections.abc import Sequence

import openai

from data.providers.embedder_base import EmbedderConfig
from data.providers.openai_adapter import map_openai_error

OPENAI_MAX_INPUTS = 2048  # the API refuses a longer `input` array ("'$.input' is invalid")


class OpenAIEmbedder(EmbedderConfig):
    """Implements domain.semantic.Embedder; a client per call (its connections belong to the calling event loop)."""

    max_batch = OPENAI_MAX_INPUTS

    async def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        """One vector per text, in order (`query` makes no difference to OpenAI's models)."""
        client = openai.AsyncOpenAI(api_key=self._api_key, base_url=self._base_url, max_retries=2,
                                    timeout=self._timeout)
        try:
            response = await client.embeddings.create(model=self._model, input=list(texts))
        except Exception as exc:
            raise map_openai_error(exc, self._name, str(client.base_url)) from exc
        finally:
            await client.close()
        return [list(item.embedding) for item in sorted(response.data, key=lambda item: item.index)]
