"""The base64-like runs of a capital-heavy text (domain/context/text_tokens.py) are looked for with the regex only
where a run of 32 of its characters exists (found over the UTF-8 bytes at C speed): the estimate is the same as
with the regex run every time, and a long log or JSON page without such a run is not scanned by it."""

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


PIECES = ["A", "Z9", "+/=", "ab", " ", "\n", "-", ".", "é", "漢", "\ud800", "GET /API/V2", "SKU-004211", "x" * 31]


def texts() -> list[str]:
    rng = random.Random(11)
    out = ["", "A" * 31, "A" * 32, "A" * 31 + "é" + "A" * 31, "A" * 31 + "\ud800" + "B" * 40, "漢" * 40 + "Q" * 32]
    for _ in range(400):
        out.append("".join(rng.choice(PIECES) * rng.randint(1, 12) for _ in range(rng.randint(1, 40))))
    out.append("".join(rng.choice(string.ascii_uppercase + "=/+ ") for _ in range(5_000)))
    return out


def test_the_estimate_is_the_same_as_with_the_regex_run_on_every_capital_heavy_text() -> None:
    for text in texts():
        assert weighted_tokens(text) == scanned_every_time(text), text[:80]


class Recording:
    def __init__(self) -> None:
        self.scanned: list[str] = []

    def findall(self, text: str) -> list[str]:
        self.scanned.append(text)
        return _ALWAYS.findall(text)


@pytest.mark.parametrize(("text", "scanned"), [
    ("\n".join(f"2026-11-0{i % 9 + 1}T10:00:00Z GET /API/V2/ORDERS/{i} 200 {i}MS" for i in range(2_000)), False),
    ('[{"ROW":1,"SKU":"SKU-004211","QTY":3}]' * 800, False),
    ("KEY=" + "QUJDRA" * 20 + "\n" + "ABC DEF\n" * 100, True),
])
def test_the_regex_scans_only_a_text_with_a_long_run(monkeypatch: pytest.MonkeyPatch, text: str,
                                                     scanned: bool) -> None:
    recording = Recording()
    monkeypatch.setattr(text_tokens, "_DENSE", recording)
    assert weighted_tokens(text) == scanned_every_time(text)
    assert bool(recording.scanned) is scanned
