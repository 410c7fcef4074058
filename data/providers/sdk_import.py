"""Imports the SDKs with or without their aiohttp transport, and picks the anthropic and openai HTTP client to match.

The three SDKs import aiohttp at their own import whenever it is installed (an optional transport); aiohttp builds
its TLS contexts as it is imported: about 100 ms of CPU, a seventh of a one-turn `palimpsest chat` process. A process
that runs one command sends over httpx instead and imports the SDK with aiohttp hidden, so none of it is loaded.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

HIDDEN = "aiohttp"


def import_sdk(name: str, *, aiohttp: bool) -> ModuleType:
    """The SDK module `name`. Without `aiohttp`, and when neither the SDK nor aiohttp is loaded yet, the SDK is
    imported while aiohttp cannot be (the SDK then leaves its aiohttp transport out, as when it is not installed);
    aiohttp stays importable for anything else afterwards."""
    if aiohttp or name in sys.modules or HIDDEN in sys.modules:
        return importlib.import_module(name)
    sys.modules[HIDDEN] = None  # type: ignore[assignment]  # None: `import aiohttp` raises ImportError
    try:
        return importlib.import_module(name)
    finally:
        if HIDDEN in sys.modules and sys.modules[HIDDEN] is None:
            del sys.modules[HIDDEN]


def http_client(sdk: Any, hooks: dict[str, list[Any]], *, aiohttp: bool) -> Any:
    """The SDK's async HTTP client with the event hooks: its aiohttp one when wanted and the SDK has it (an SDK
    imported without aiohttp earlier in the process has not), else its httpx one."""
    if aiohttp:
        try:
            return sdk.DefaultAioHttpClient(event_hooks=hooks)
        except RuntimeError:  # "To use the aiohttp client you must have installed the package with the aiohttp extra"
            pass
    return sdk.DefaultAsyncHttpxClient(event_hooks=hooks)
