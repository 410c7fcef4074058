"""Fake llama.cpp, LM Studio and LiteLLM servers: their OpenAI-compatible /v1 plus where each reports a model's
context (llama.cpp's /props and the `meta` of its /v1/models; LM Studio's /api/v0/models/{id}; LiteLLM's
/model/info), in their real shapes; and the /v1/models bodies of vLLM, OpenRouter, Together, Fireworks, Groq and
Mistral, each stating a model's window in its own field (for FakeOpenAIServer's `listing`)."""

from __future__ import annotations

from collections import Counter
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


class FakeLiteLLMServer(FakeOpenAIServer):
    """LiteLLM's proxy serving `model` (routed to `openai/<model>`): its /v1/models lists ids only, as LiteLLM's does;
    /model/info (and /v1/model/info) carries the model_info of LiteLLM's price map; any other path is FastAPI's 404."""

    def __init__(self, *args: Any, model: str = "team-gpt", max_input_tokens: int = 128_000,
                 max_output_tokens: int = 16_384, **kwargs: Any) -> None:
        super().__init__(*args, models=[{"id": model}], **kwargs)
        self.model, self.max_input_tokens, self.max_output_tokens = model, max_input_tokens, max_output_tokens

    def route(self, raw: RawRequest) -> HttpResponse:
        """/model/info; /v1/models and /v1/chat/completions as Chat Completions; {"detail": "Not Found"} else."""
        if raw.method == "GET" and raw.path in ("/model/info", "/v1/model/info"):
            info = {"id": "8c1e3f0f5d0c4a7e", "db_model": False, "key": f"openai/{self.model}",
                    "max_tokens": self.max_output_tokens, "max_input_tokens": self.max_input_tokens,
                    "max_output_tokens": self.max_output_tokens, "input_cost_per_token": 2.5e-06,
                    "output_cost_per_token": 1e-05, "litellm_provider": "openai", "mode": "chat",
                    "supports_function_calling": True, "supports_vision": True, "supports_system_messages": True}
            return HttpResponse.of_json({"data": [{
                "model_name": self.model, "litellm_params": {"model": f"openai/{self.model}", "use_in_pass_through":
                                                             False, "merge_reasoning_content_in_choices": False},
                "model_info": info}]})
        if raw.path in ("/v1/models", "/v1/chat/completions"):
            return super().route(raw)
        return HttpResponse.of_json({"detail": "Not Found"}, 404)


def listing_of(form: str, model: str, window: int) -> Any:
    """The body of GET /v1/models of a provider (`form`) that serves `model` with a `window`-token context."""
    created = 1_720_000_000
    if form == "vllm":
        return {"object": "list", "data": [{
            "id": model, "object": "model", "created": created, "owned_by": "vllm", "root": f"/models/{model}",
            "parent": None, "max_model_len": window,
            "permission": [{"id": "modelperm-1", "object": "model_permission", "allow_sampling": True}]}]}
    if form == "openrouter":  # the model's longest context, and the smaller one of the provider routed to first
        return {"data": [{
            "id": model, "canonical_slug": model, "name": "Meta: Llama 3.1 70B Instruct", "created": created,
            "description": "Meta's latest class of model.", "context_length": window * 2,
            "architecture": {"modality": "text->text", "input_modalities": ["text"], "output_modalities": ["text"],
                             "tokenizer": "Llama3", "instruct_type": "llama3"},
            "pricing": {"prompt": "0.0000004", "completion": "0.0000004", "request": "0", "image": "0"},
            "top_provider": {"context_length": window, "max_completion_tokens": 16_384, "is_moderated": False},
            "per_request_limits": None, "supported_parameters": ["max_tokens", "temperature", "tools"]}]}
    if form == "together":  # a bare array, not {"data": [...]}
        return [{"id": model, "object": "model", "created": created, "type": "chat", "running": False,
                 "display_name": "Llama 3.3 70B Instruct Turbo", "organization": "Meta",
                 "link": "https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct", "license": "llama3.3",
                 "context_length": window, "config": {"chat_template": "{{ messages }}", "stop": ["<|eot_id|>"]},
                 "pricing": {"hourly": 0, "input": 0.88, "output": 0.88, "base": 0, "finetune": 0}}]
    if form == "fireworks":
        return {"object": "list", "data": [{
            "id": model, "object": "model", "owned_by": "fireworks", "created": created, "kind": "HF_BASE_MODEL",
            "supports_chat": True, "supports_image_input": False, "supports_tools": True, "context_length": window}]}
    if form == "groq":
        return {"object": "list", "data": [{
            "id": model, "object": "model", "created": created, "owned_by": "Meta", "active": True,
            "context_window": window, "public_apps": None, "max_completion_tokens": 32_768}]}
    if form == "mistral":
        return {"object": "list", "data": [{
            "id": model, "object": "model", "created": created, "owned_by": "mistralai",
            "capabilities": {"completion_chat": True, "completion_fim": False, "function_calling": True,
                             "fine_tuning": False, "vision": False, "classification": False},
            "name": model, "description": "Official Mistral model.", "max_context_length": window, "aliases": [],
            "deprecation": None, "deprecation_replacement_model": None, "default_model_temperature": 0.3,
            "type": "base"}]}
    raise ValueError(form)


def requests_per_path(server: FakeOpenAIServer) -> Counter[str]:
    """How many times each "METHOD /path" was asked of the server."""
    return Counter(f"{r.method} {r.path}" for r in server.log)
