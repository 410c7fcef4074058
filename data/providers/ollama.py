"""Reads an Ollama server's /api/show answer: a model's trained context length and configured num_ctx."""

from __future__ import annotations

import re
from typing import Any

_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.M)


def server_root(base_url: str) -> str:
    """The server root of an OpenAI-compatible base URL (…/v1 → …)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def trained_length_from_show(payload: Any) -> tuple[int | None, int | None]:
    """(the model's trained context length, its configured num_ctx) from an /api/show answer; None where absent."""
    if not isinstance(payload, dict):
        return None, None
    num_ctx = None
    parameters = payload.get("parameters")
    if isinstance(parameters, str):
        match = _NUM_CTX.search(parameters)
        num_ctx = int(match.group(1)) if match else None
    trained = None
    info = payload.get("model_info")
    if isinstance(info, dict):
        trained = next((v for k, v in info.items() if k.endswith(".context_length") and isinstance(v, int) and v > 0),
                       None)
    return trained, num_ctx


def context_length_from_show(payload: Any) -> int | None:
    """The window an /api/show answer states: a configured num_ctx wins over the model's trained context length."""
    if not isinstance(payload, dict):
        return None
    parameters = payload.get("parameters")
    if isinstance(parameters, str):
        match = _NUM_CTX.search(parameters)
        if match:
            return int(match.group(1))
    info = payload.get("model_info")
    if isinstance(info, dict):
        for key, value in info.items():
            if key.endswith(".context_length") and isinstance(value, int) and value > 0:
                return value
    return None
