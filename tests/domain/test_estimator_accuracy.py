"""The estimator's accuracy claim, checked against tiktoken's o200k_base on the benchmark's corpus."""

from __future__ import annotations

import pytest

from bench.corpus import corpus
from domain.context.estimator import TokenEstimator
from tests.fakeservers.tokens import use_shipped_encodings


@pytest.mark.parametrize("content_class", ["prose", "python", "json", "logs", "cjk", "base64"])
def test_worst_underestimate_per_content_class_is_at_most_ten_percent(content_class: str) -> None:
    use_shipped_encodings()  # tests/tokenizers/: never skipped, never downloaded
    import tiktoken

    enc = tiktoken.get_encoding("o200k_base")
    est = TokenEstimator()
    for text in corpus(samples_per_class=15, seed=4242)[content_class]:
        truth = len(enc.encode(text, disallowed_special=()))
        assert est.estimate_text(text) >= 0.9 * truth, f"{content_class} underestimated: {text[:80]!r}"
