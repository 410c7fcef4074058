"""Token counters for the fake servers: a cheap character estimate and tiktoken's o200k_base."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

TokenCounter = Callable[[str], int]
SHIPPED_ENCODINGS = Path(__file__).resolve().parent.parent / "tokenizers"


def use_shipped_encodings() -> None:
    """Points tiktoken's cache at the encodings shipped in tests/tokenizers/, so it never downloads them."""
    os.environ["TIKTOKEN_CACHE_DIR"] = str(SHIPPED_ENCODINGS)


def approx_counter(text: str) -> int:
    """About four characters a token: len(text) / 4, rounded up."""
    return (len(text) + 3) // 4


@lru_cache(maxsize=1)
def _o200k() -> object:
    use_shipped_encodings()
    import tiktoken

    return tiktoken.get_encoding("o200k_base")


def o200k_counter(text: str) -> int:
    """Exact token count with tiktoken's o200k_base encoding (offline: from tests/tokenizers/)."""
    encoding = _o200k()
    return len(encoding.encode(text, disallowed_special=()))  # type: ignore[attr-defined]


def common_prefix_length(a: str, b: str) -> int:
    """Length of the longest common prefix of two strings."""
    limit = min(len(a), len(b))
    low, high = 0, limit
    while low < high:  # binary search on slices: fast for long prompts
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low
