"""The fake servers' embedding endpoints: OpenAI's POST /v1/embeddings and Gemini's models/{m}:batchEmbedContents and
:embedContent, in the real wire formats with the real limits and error bodies; the vectors are deterministic bags
of concepts (synonyms share a dimension), so a query related in meaning but not in words finds its passage."""

from __future__ import annotations

import base64
import re
import struct
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tests.fakeservers.server import HttpResponse
from tests.fakeservers.tokens import TokenCounter

DIMENSIONS = 64
CONCEPTS: Mapping[str, tuple[str, ...]] = {  # a concept and the words that mean it
    "vehicle": ("car", "cars", "automobile", "automobiles", "vehicle", "vehicles", "sedan", "truck"),
    "doctor": ("doctor", "doctors", "physician", "physicians", "medic", "surgeon"),
    "money": ("money", "cash", "payment", "payments", "salary", "wage", "wages", "funds"),
    "ocean": ("ocean", "sea", "seas", "marine", "maritime", "tide", "tides"),
    "fire": ("fire", "flame", "flames", "blaze", "combustion", "burning"),
    "food": ("food", "meal", "meals", "dinner", "lunch", "cuisine", "dish"),
    "sleep": ("sleep", "sleeping", "slumber", "nap", "rest", "asleep"),
    "storage": ("parked", "garage", "stored", "kept", "keep", "storage", "shelter"),
}
_WORD_CONCEPT = {word: concept for concept, words in CONCEPTS.items() for word in words}
_WORD = re.compile(r"[a-z]+")
OPENAI_EMBEDDING_MODELS = ("text-embedding-3-small", "text-embedding-3-large", "text-embedding-ada-002")
GEMINI_EMBEDDING_MODELS = ("gemini-embedding-001", "text-embedding-004")
OPENAI_MAX_INPUTS = 2048
OPENAI_MAX_INPUT_TOKENS = 8192
OPENAI_MAX_REQUEST_TOKENS = 300_000
GEMINI_MAX_REQUESTS = 100
GEMINI_TASK_TYPES = ("TASK_TYPE_UNSPECIFIED", "RETRIEVAL_QUERY", "RETRIEVAL_DOCUMENT", "SEMANTIC_SIMILARITY",
                     "CLASSIFICATION", "CLUSTERING", "QUESTION_ANSWERING", "FACT_VERIFICATION", "CODE_RETRIEVAL_QUERY")


def concept_vector(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    """A bag of concepts: each word of a known concept adds 1 to its concept's dimension; a text with none gets a
    small constant vector (never zero)."""
    vector = [0.0] * dimensions
    for word in _WORD.findall(text.lower()):
        concept = _WORD_CONCEPT.get(word)
        if concept is not None:
            vector[zlib.crc32(concept.encode()) % dimensions] += 1.0
    if not any(vector):
        vector = [0.01] * dimensions
    return vector


def _openai_error(message: str, status: int, kind: str = "invalid_request_error", code: str | None = None,
                  param: str | None = None) -> HttpResponse:
    return HttpResponse.of_json({"error": {"message": message, "type": kind, "param": param, "code": code}}, status)


def openai_embeddings(body: Mapping[str, Any], counter: TokenCounter, models: Sequence[str],
                      calls: list[int]) -> HttpResponse:
    """POST /v1/embeddings: `input` a string or an array of 1..2048 non-empty strings, each at most 8192 tokens,
    300,000 in all; `encoding_format` float or base64 (little-endian float32, the SDK's default)."""
    model = str(body.get("model") or "")
    if model not in models:
        return _openai_error(f"The model `{model}` does not exist or you do not have access to it.", 404,
                             code="model_not_found")
    raw = body.get("input")
    texts = [raw] if isinstance(raw, str) else raw
    invalid = "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference."
    if not isinstance(texts, list) or not texts or len(texts) > OPENAI_MAX_INPUTS or \
            not all(isinstance(t, str) and t for t in texts):
        return _openai_error(invalid, 400)
    tokens = [counter(t) for t in texts]
    for count in tokens:
        if count > OPENAI_MAX_INPUT_TOKENS:
            return _openai_error(f"This model's maximum context length is {OPENAI_MAX_INPUT_TOKENS} tokens, however "
                                 f"you requested {count} tokens ({count} in your prompt; 0 for the completion). "
                                 "Please reduce your prompt; or completion length.", 400)
    if sum(tokens) > OPENAI_MAX_REQUEST_TOKENS:
        return _openai_error(f"Requested {sum(tokens)} tokens, max {OPENAI_MAX_REQUEST_TOKENS} tokens per request",
                             400, kind="max_tokens_per_request", code="max_tokens_per_request")
    encoding = body.get("encoding_format", "float")
    if encoding not in ("float", "base64"):
        return _openai_error(f"Invalid value for 'encoding_format': {encoding!r}.", 400, param="encoding_format")
    calls.append(len(texts))

    def encoded(vector: list[float]) -> Any:
        return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode() if encoding == "base64" else vector

    data = [{"object": "embedding", "index": i, "embedding": encoded(concept_vector(t))} for i, t in enumerate(texts)]
    return HttpResponse.of_json({"object": "list", "data": data, "model": model,
                                 "usage": {"prompt_tokens": sum(tokens), "total_tokens": sum(tokens)}})


ErrorMaker = Callable[[int, str, str], HttpResponse]


def gemini_embeddings(model: str, method: str, body: Mapping[str, Any], models: Sequence[str], error: ErrorMaker,
                      calls: list[int]) -> HttpResponse:
    """models/{model}:batchEmbedContents (at most 100 requests, each naming the URL's model) or :embedContent."""
    if model not in models:
        return error(404, "NOT_FOUND", f"models/{model} is not found for API version v1beta, or is not supported for "
                     f"{method}. Call ListModels to see the list of available models and their supported methods.")
    if method == "embedContent":
        problem = _gemini_request_problem(body, model, "EmbedContentRequest", check_model=False)
        if problem:
            return error(400, "INVALID_ARGUMENT", problem)
        calls.append(1)
        return HttpResponse.of_json({"embedding": {"values": concept_vector(_gemini_text(body))}})
    requests = body.get("requests")
    if not isinstance(requests, list) or not requests:
        return error(400, "INVALID_ARGUMENT", "* BatchEmbedContentsRequest.requests: requests must not be empty\n")
    if len(requests) > GEMINI_MAX_REQUESTS:
        return error(400, "INVALID_ARGUMENT", f"* BatchEmbedContentsRequest.requests: at most {GEMINI_MAX_REQUESTS} "
                     "requests can be in one batch\n")
    for i, request in enumerate(requests):
        problem = _gemini_request_problem(request, model, f"BatchEmbedContentsRequest.requests[{i}]")
        if problem:
            return error(400, "INVALID_ARGUMENT", problem)
    calls.append(len(requests))
    return HttpResponse.of_json({"embeddings": [{"values": concept_vector(_gemini_text(r))} for r in requests]})


def _gemini_text(request: Mapping[str, Any]) -> str:
    parts = (request.get("content") or {}).get("parts") or []
    return " ".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))


def _gemini_request_problem(request: Any, model: str, where: str, *, check_model: bool = True) -> str | None:
    if not isinstance(request, dict):
        return f"* {where}: must be an object\n"
    named = str(request.get("model") or "")
    if check_model and named.removeprefix("models/") != model:
        return (f"* {where}.model: Model name in request ({named or 'empty'}) does not match the model in the URL "
                f"(models/{model}).\n")
    if not (request.get("content") or {}).get("parts"):
        return f"* {where}.content.parts: contents.parts must not be empty.\n"
    task = request.get("taskType")
    if task is not None and task not in GEMINI_TASK_TYPES:
        return (f"Invalid value at '{where.split('.', 1)[-1]}.task_type' "
                f"(type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType), \"{task}\"")
    return None
