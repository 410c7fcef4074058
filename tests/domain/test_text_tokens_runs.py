"""The base64-like runs of a capital-heavy text (domain/context/text_tokens.py) are found over its UTF-8 bytes at C
speed, without a regex: they are the runs the regex [A-Za-z0-9+/=]{32,} finds, and the estimate is the same as with
that regex run on every capital-heavy text."""

from __future__ import annotations

import random
import re
import string

import pytest

import domain.context.text_tokens as text_tokens
from domain.context.text_tokens import SAFETY, W_DENSE, _weighted, weighted_tokens

_ALWAYS = re.compile(r"[A-Za-z0-9+/=]{32,}")


def scanned_every_time(text: str) -> int:
    """weighted_tokens as it was: the regex scan on every capital-heavy, space-poor text."""
    estimate = _weighted(text)
    if estimate[1] * 4 > estimate[2]:
        dense = "".join(_ALWAYS.findall(text))
        if dense:
            estimate = [a - b for a, b in zip(estimate, _weighted(dense), strict=True)]
            estimate[0] += len(dense) * W_DENSE
    return int(estimate[0] * SAFETY + 0.999)


LOG = "\n".join(f"2026-11-0{i % 9 + 1}T10:00:00Z GET /API/V2/ORDERS/{i} 200 {i}MS" for i in range(2_000))
JSON_PAGE = '[{"ROW":1,"SKU":"SKU-004211","QTY":3}]' * 800
LONG_PAGES = [LOG, JSON_PAGE, LOG + "\n[saved as c06614950b714448ba92a7e42600ee17]", "Z" * 40 + LOG + "+" * 33]

PIECES = ["A", "Z9", "+/=", "ab", " ", "\n", "-", ".", "é", "漢", "\ud800", "GET /API/V2", "SKU-004211", "x" * 31]


def texts() -> list[str]:
    rng = random.Random(11)
    out = ["", "A" * 31, "A" * 32, "A" * 31 + "é" + "A" * 31, "A" * 31 + "\ud800" + "B" * 40, "漢" * 40 + "Q" * 32]
    for _ in range(400):
        out.append("".join(rng.choice(PIECES) * rng.randint(1, 12) for _ in range(rng.randint(1, 40))))
    out.append("".join(rng.choice(string.ascii_uppercase + "=/+ ") for _ in range(5_000)))
    out += LONG_PAGES
    return out


def test_the_estimate_is_the_same_as_with_the_regex_run_on_every_capital_heavy_text() -> None:
    for text in texts():
        assert weighted_tokens(text) == scanned_every_time(text), text[:80]


def test_the_runs_are_the_regexs_runs_in_order() -> None:
    for text in texts():
        assert text_tokens.dense_runs(text) == "".join(_ALWAYS.findall(text)), text[:80]


@pytest.mark.parametrize(("text", "runs"), [
    (LOG, ""),
    (JSON_PAGE, ""),
    ("KEY=" + "QUJDRA" * 20 + "\n" + "ABC DEF\n" * 100, "KEY=" + "QUJDRA" * 20),
    (LOG + "\n[saved as c06614950b714448ba92a7e42600ee17]", "c06614950b714448ba92a7e42600ee17"),
    ("é" + "A" * 32 + "漢" + "B" * 33 + "-" + "C" * 31, "A" * 32 + "B" * 33),
])
def test_a_long_page_gives_exactly_its_long_runs(text: str, runs: str) -> None:
    assert text_tokens.dense_runs(text) == runs
    assert weighted_tokens(text) == scanned_every_time(text)
