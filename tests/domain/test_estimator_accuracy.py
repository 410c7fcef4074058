"""The estimator's accuracy claim, checked against tiktoken's o200k_base on the benchmark's corpus."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.corpus import corpus
from domain.context.estimator import TokenEstimator

TOKENIZERS = Path(__file__).resolve().parents[3] / "shared" / "tokenizers"
pytestmark = pytest.mark.skipif(
    not TOKENIZERS.is_dir() and "TIKTOKEN_CACHE_DIR" not in os.environ,
    reason="the offline o200k_base files (../shared/tokenizers) are not on this machine",
)


@pytest.mark.parametrize("content_class", ["prose", "python", "json", "logs", "cjk", "base64"])
def test_worst_underestimate_per_content_class_is_at_most_ten_percent(content_class: str) -> None:
    import tiktoken

    enc = tiktoken.get_encoding("o200k_base")
    est = TokenEstimator()
    for text in corpus(samples_per_class=15, seed=4242)[content_class]:
        truth = len(enc.encode(text, disallowed_special=()))
        assert est.estimate_text(text) >= 0.9 * truth, f"{content_class} underestimated: {text[:80]!r}"
