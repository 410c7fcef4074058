"""Fake llama.cpp and LM Studio servers: their OpenAI-compatible /v1 plus where each reports a model's loaded
context (llama.cpp's /props and the `meta` of its /v1/models; LM Studio's /api/v0/models/{id}), in their real shapes."""

from __future__ import annotations

from typing import Any

from tests.fakeservers.openai_server import FakeOpenAIServer
from tests.fakeservers.server import HttpResponse, RawRequest


class FakeLlamaCppServer(FakeOpenAIServer):
    """llama-server started with --ctx-size `n_ctx`, serving one GGUF model trained for `n_ctx_train` tokens."""

    def __init__(self, *args: Any, model: str = "llama-3.1-8b-instruct-q4_k_m.gguf", n_ctx: int = 4096,
                 n_ctx_train: int = 131072, **kwargs: Any) -> None:
        super().__init__(*args, models=[{"id": model}], **kwargs)
        self.model, self.n_ctx, self.n_ctx_train = model, n_ctx, n_ctx_train

    def route(self, raw: RawRequest) -> HttpResponse:
        """/props and a /v1/models with meta; the rest as Chat Completions."""
        if raw.method == "GET" and raw.path == "/props":
            return HttpResponse.of_json({"default_generation_settings": {"n_ctx": self.n_ctx, "temperature": 0.8},
                                         "total_slots": 1, "model_path": f"/models/{self.model}",
                                         "chat_template": "{{ messages }}", "build_info": "b4600-abcdef0"})
        if raw.method == "GET" and raw.path == "/v1/models":
            meta = {"vocab_type": 2, "n_vocab": 128256, "n_ctx_train": self.n_ctx_train, "n_embd": 4096,
                    "n_params": 8030261248, "size": 4912898304}
            return HttpResponse.of_json({"object": "list", "data": [
                {"id": self.model, "object": "model", "created": 1700000000, "owned_by": "llamacpp", "meta": meta}]})
        return super().route(raw)


class FakeLmStudioServer(FakeOpenAIServer):
    """LM Studio with one model loaded at `loaded` tokens of its `maximum`."""

    def __init__(self, *args: Any, model: str = "qwen2.5-7b-instruct", loaded: int = 4096, maximum: int = 32768,
                 **kwargs: Any) -> None:
        super().__init__(*args, models=[{"id": model}], **kwargs)
        self.model, self.loaded, self.maximum = model, loaded, maximum

    def route(self, raw: RawRequest) -> HttpResponse:
        """/api/v0/models/{id}; the rest as Chat Completions."""
        if raw.method == "GET" and raw.path.startswith("/api/v0/models/"):
            name = raw.path.removeprefix("/api/v0/models/")
            if name != self.model:
                return HttpResponse.of_json({"error": f"Model {name} not found"}, 404)
            return HttpResponse.of_json({
                "id": name, "object": "model", "type": "llm", "publisher": "lmstudio-community", "arch": "qwen2",
                "compatibility_type": "gguf", "quantization": "Q4_K_M", "state": "loaded",
                "max_context_length": self.maximum, "loaded_context_length": self.loaded})
        return super().route(raw)
