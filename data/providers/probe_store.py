"""Where servers' answers to window probes are kept (no SDK imported: the database's store is built at start-up):
the ProbeStore contract, an in-memory one, the key a server is kept under and the fields of an answer kept."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

PROBES_KEPT = timedelta(days=1)  # how long the database's store keeps an answer
# the fields of the servers' answers that windows are read from (data.providers.local_server, listed_windows)
_KEPT = frozenset({
    "data", "id", "version", "models", "name", "model", "parameters", "model_info", "context_length", "meta",
    "n_ctx_train", "default_generation_settings", "n_ctx", "max_model_len", "top_provider", "context_window",
    "max_context_length", "loaded_context_length", "model_name", "max_input_tokens", "max_tokens",
    "max_output_tokens",
})


@dataclass(frozen=True)
class Recalled:
    """A remembered answer: `answer` is None when the server had none (not that kind of server)."""

    answer: Any


class ProbeStore(Protocol):
    """Answers of servers to probes, per server URL and request; a store may forget them (the database's: a day)."""

    def recall(self, server: str, request: str) -> Recalled | None:
        """The answer remembered for the request, or None when it was not asked (or too long ago)."""
        ...

    def remember(self, server: str, request: str, answer: Any) -> None:
        """Keeps the (pruned, JSON) answer; None: the server had no answer."""
        ...


class MemoryProbes:
    """A ProbeStore in memory, for one adapter (what an adapter without the database's store uses)."""

    def __init__(self) -> None:
        self._answers: dict[tuple[str, str], Any] = {}

    def recall(self, server: str, request: str) -> Recalled | None:
        key = (server, request)
        return Recalled(self._answers[key]) if key in self._answers else None

    def remember(self, server: str, request: str, answer: Any) -> None:
        self._answers[(server, request)] = answer


def server_key(url: str) -> str:
    """The URL a server's probes are kept under: no user, password, query or fragment (never a key)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host  # an IPv6 address keeps its brackets
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def pruned(value: Any) -> Any:
    """The answer with only the fields windows are read from (lists and the `*.context_length` of /api/show kept)."""
    if isinstance(value, dict):
        return {k: pruned(v) for k, v in value.items()
                if isinstance(k, str) and (k in _KEPT or k.endswith(".context_length"))}
    if isinstance(value, list):
        return [pruned(v) for v in value]
    return value
