"""A fake Ollama server: its OpenAI-compatible /v1 plus the native /api/version, /api/show and /api/ps, and the way
Ollama really treats a request longer than the context a model is loaded with: it cuts the oldest part silently (the
system prompt stays) and reports only the tokens it kept."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from tests.fakeservers.brain import Answer, NormalizedRequest
from tests.fakeservers.openai_server import FakeOpenAIServer
from tests.fakeservers.server import Accounting, HttpResponse, RawRequest

OLLAMA_VERSION = "0.12.10"
DEFAULT_CONTEXT = 4096  # what Ollama loads a model with unless told otherwise


class FakeOllamaServer(FakeOpenAIServer):
    """`trained`: each model's trained context length (/api/show model_info); `num_ctx`: a Modelfile's num_ctx
    (/api/show parameters); a model is loaded (/api/ps) with its num_ctx, else `default_context`, and every request
    longer than that is cut from the oldest message on, without an error. `truncated` counts the requests cut."""

    def __init__(self, *args: Any, trained: Mapping[str, int] | None = None, num_ctx: Mapping[str, int] | None = None,
                 default_context: int = DEFAULT_CONTEXT, **kwargs: Any) -> None:
        super().__init__(*args, ollama=True, **kwargs)
        self.trained = dict(trained or {})
        self.num_ctx = dict(num_ctx or {})
        self.default_context = default_context
        self.loaded: set[str] = set()
        self.truncated = 0

    def loaded_context(self, model: str) -> int:
        """The context the model runs with once loaded."""
        return self.num_ctx.get(model, self.default_context)

    def route(self, raw: RawRequest) -> HttpResponse:
        """Adds /api/version and /api/ps, and answers /api/show from `trained` and `num_ctx`."""
        if raw.method == "GET" and raw.path == "/api/version":
            return HttpResponse.of_json({"version": OLLAMA_VERSION})
        if raw.method == "GET" and raw.path == "/api/ps":
            return HttpResponse.of_json({"models": [self._running(name) for name in sorted(self.loaded)]})
        if raw.method == "POST" and raw.path == "/api/show":
            return self._show_model(raw.json())
        return super().route(raw)

    def _running(self, name: str) -> dict[str, Any]:
        return {"name": name, "model": name, "size": 5_500_000_000, "digest": "a" * 64,
                "details": {"family": "llama", "format": "gguf", "parameter_size": "8.0B",
                            "quantization_level": "Q4_K_M"},
                "expires_at": "2026-11-23T18:00:00Z", "size_vram": 5_500_000_000,
                "context_length": self.loaded_context(name)}

    def _show_model(self, body: Mapping[str, Any]) -> HttpResponse:
        name = str(body.get("model") or body.get("name") or "")
        if name not in self.trained and not any(m.get("id") == name for m in self.models):
            return HttpResponse.of_json({"error": f"model '{name}' not found"}, 404)
        info: dict[str, Any] = {"general.architecture": "llama", "general.parameter_count": 8030261248}
        if name in self.trained:
            info["llama.context_length"] = self.trained[name]
        parameters = f"num_ctx                        {self.num_ctx[name]}" if name in self.num_ctx else ""
        return HttpResponse.of_json({"modelfile": "", "parameters": parameters, "template": "{{ .Prompt }}",
                                     "details": {"family": "llama", "format": "gguf"}, "model_info": info,
                                     "capabilities": ["completion", "tools"]})

    def answer(self, request: NormalizedRequest) -> tuple[Answer, Accounting]:
        """Loads the model, cuts the request to its context as Ollama does, then answers what is left."""
        self.loaded.add(request.model)
        limit = self.loaded_context(request.model)
        messages = list(request.messages)
        cut = replace(request, messages=tuple(messages))
        while messages and self.counter(cut.serialized()) > limit:
            messages.pop(0)
            cut = replace(request, messages=tuple(messages))
        if len(messages) < len(request.messages):
            self.truncated += 1
        return super().answer(cut)
