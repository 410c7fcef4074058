"""Asks an OpenAI-compatible server what context it really runs a model with: Ollama (found by its /api/version on
the server's root, never guessed from the port; /api/ps for the loaded context, /api/show for num_ctx and the
trained length), llama.cpp (/props), LM Studio (/api/v0/models) and vLLM (max_model_len in /v1/models)."""

from __future__ import annotations

from typing import Any

import openai

from data.providers.ollama import server_root, trained_length_from_show
from domain.models import ServerWindow

OLLAMA_DEFAULT_CONTEXT = 4096  # what Ollama loads a model with unless num_ctx or OLLAMA_CONTEXT_LENGTH say otherwise


async def _get(client: openai.AsyncOpenAI, path: str, body: dict[str, Any] | None = None) -> Any:
    """The JSON answer of one request to the server's root, or None on any failure (not that server)."""
    try:
        if body is None:
            return await client.get(path, cast_to=object)
        return await client.post(path, body=body, cast_to=object)
    except (openai.APIError, ValueError):
        return None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _same_model(entry: Any, model_id: str) -> bool:
    if not isinstance(entry, dict):
        return False
    names = {str(entry.get("name") or ""), str(entry.get("model") or "")}
    wanted = {model_id, model_id if ":" in model_id else model_id + ":latest"}
    return bool(names & wanted)


async def ollama_window(root: openai.AsyncOpenAI, model_id: str) -> ServerWindow | None:
    """The model's window on an Ollama server: as loaded (/api/ps), else its num_ctx, else Ollama's default."""
    show = await _get(root, "/api/show", {"model": model_id})
    trained, num_ctx = trained_length_from_show(show)
    running = await _get(root, "/api/ps")
    loaded = None
    if isinstance(running, dict):
        for entry in running.get("models") or ():
            if _same_model(entry, model_id):
                loaded = _positive(entry.get("context_length"))
    window = loaded or num_ctx or OLLAMA_DEFAULT_CONTEXT
    return ServerWindow("Ollama", window, trained)


async def llama_cpp_window(root: openai.AsyncOpenAI, props: Any, listed: list[Any]) -> ServerWindow | None:
    """llama.cpp's /props n_ctx (the context it was started with) and its model list's n_ctx_train."""
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    loaded = _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None
    if loaded is None:
        return None
    trained = next((_positive((m.get("meta") or {}).get("n_ctx_train")) for m in listed if isinstance(m, dict)
                    and isinstance(m.get("meta"), dict)), None)
    return ServerWindow("llama.cpp", loaded, trained)


async def probe_window(client: openai.AsyncOpenAI, model_id: str) -> ServerWindow | None:
    """The server's real window for the model, or None when the server is none of those or does not say."""
    root = client.with_options(base_url=server_root(str(client.base_url)), max_retries=0)
    version = await _get(root, "/api/version")
    if isinstance(version, dict) and isinstance(version.get("version"), str):
        return await ollama_window(root, model_id)
    models = await _get(root, "/v1/models")
    listed = list(models.get("data") or []) if isinstance(models, dict) else []
    props = await _get(root, "/props")
    if isinstance(props, dict):
        return await llama_cpp_window(root, props, listed)
    studio = await _get(root, f"/api/v0/models/{model_id}")
    if isinstance(studio, dict) and _positive(studio.get("max_context_length")):
        loaded = _positive(studio.get("loaded_context_length")) or _positive(studio.get("max_context_length"))
        assert loaded is not None
        return ServerWindow("LM Studio", loaded, _positive(studio.get("max_context_length")))
    entry = next((m for m in listed if isinstance(m, dict) and m.get("id") == model_id), None)
    if entry is not None and _positive(entry.get("max_model_len")):
        return ServerWindow("vLLM", entry["max_model_len"], None)
    return None
