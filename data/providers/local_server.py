"""Asks an OpenAI-compatible server what context it really runs a model with: Ollama (found by its /api/version on
the server's root, never guessed from the port; /api/ps for the loaded context, /api/show for num_ctx and the
trained length), llama.cpp (/props), LM Studio (/api/v0/models), else what its model list states (listed_windows:
vLLM, OpenRouter, Together, Fireworks, Groq, Mistral; LiteLLM's /model/info). Each request goes through a ProbeStore,
so a server is asked each thing once (the database's store: once a day)."""

from __future__ import annotations

from typing import Any

import openai

from data.providers.listed_windows import entries, entry_for, listed_window, litellm_model_window, positive
from data.providers.ollama import server_root, trained_length_from_show
from data.providers.probe_store import MemoryProbes, ProbeStore
from data.providers.probes import Prober
from domain.models import ServerWindow

OLLAMA_DEFAULT_CONTEXT = 4096  # what Ollama loads a model with unless num_ctx or OLLAMA_CONTEXT_LENGTH say otherwise
MODELS_PATH = "/models"  # the model list, under the base URL (…/v1/models)


def _same_model(entry: Any, model_id: str) -> bool:
    if not isinstance(entry, dict):
        return False
    names = {str(entry.get("name") or ""), str(entry.get("model") or "")}
    wanted = {model_id, model_id if ":" in model_id else model_id + ":latest"}
    return bool(names & wanted)


async def ollama_window(root: Prober, model_id: str) -> ServerWindow | None:
    """The model's window on an Ollama server: as loaded (/api/ps), else its num_ctx, else Ollama's default."""
    show = await root.post("/api/show", {"model": model_id}, model_id)
    trained, num_ctx = trained_length_from_show(show)
    running = await root.get("/api/ps")
    loaded = None
    if isinstance(running, dict):
        for entry in running.get("models") or ():
            if _same_model(entry, model_id):
                loaded = positive(entry.get("context_length"))
    window = loaded or num_ctx or OLLAMA_DEFAULT_CONTEXT
    return ServerWindow("Ollama", window, trained)


def llama_cpp_window(props: Any, listed: list[dict[str, Any]]) -> ServerWindow | None:
    """llama.cpp's /props n_ctx (the context it was started with) and its model list's n_ctx_train."""
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    loaded = positive(settings.get("n_ctx")) if isinstance(settings, dict) else None
    if loaded is None:
        return None
    trained = next((positive(m["meta"].get("n_ctx_train")) for m in listed if isinstance(m.get("meta"), dict)), None)
    return ServerWindow("llama.cpp", loaded, trained)


def lm_studio_window(studio: Any) -> ServerWindow | None:
    """LM Studio's /api/v0/models/{id}: the context it loaded the model with, of the model's maximum."""
    if not isinstance(studio, dict) or positive(studio.get("max_context_length")) is None:
        return None
    maximum = positive(studio.get("max_context_length"))
    loaded = positive(studio.get("loaded_context_length")) or maximum
    assert loaded is not None
    return ServerWindow("LM Studio", loaded, maximum)


async def probe_window(
    client: openai.AsyncOpenAI, model_id: str, store: ProbeStore | None = None, *, local: bool = True
) -> ServerWindow | None:
    """The server's real window for the model, or None when the server does not say. `local`: the server may be
    Ollama, llama.cpp, LM Studio or LiteLLM (any base URL but a hosted router's, whose list alone is read)."""
    store = store if store is not None else MemoryProbes()
    root = Prober(client.with_options(base_url=server_root(str(client.base_url))), store)
    if local:
        version = await root.get("/api/version")
        if isinstance(version, dict) and isinstance(version.get("version"), str):
            return await ollama_window(root, model_id)
    listing = await Prober(client, store).get(MODELS_PATH)
    if local:
        props = await root.get("/props")
        if isinstance(props, dict):
            return llama_cpp_window(props, entries(listing))
        studio = lm_studio_window(await root.get(f"/api/v0/models/{model_id}"))
        if studio is not None:
            return studio
    entry = entry_for(listing, model_id)
    found = listed_window(entry) if entry is not None else None
    if found is not None or not local:
        return found
    return litellm_model_window(await root.get("/model/info"), model_id)
