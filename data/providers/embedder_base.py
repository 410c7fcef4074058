"""What every embedding adapter keeps: the provider, key, address, model and time limit, and the key its vectors are
stored by."""

from __future__ import annotations


class EmbedderConfig:
    """The settings an Embedder adapter is made with; a client is built from them per call (its connections belong
    to the calling event loop)."""

    def __init__(self, *, provider_name: str, api_key: str, base_url: str | None, model: str,
                 timeout: float = 120.0, provider_id: str | None = None) -> None:
        self.key = f"{provider_id or provider_name}/{model}"  # what its stored vectors are keyed by
        self._name = provider_name
        self._api_key = api_key
        self._base_url = base_url
        self._model = model
        self._timeout = timeout
