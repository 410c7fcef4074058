"""How many tokens a piece of text is, from its characters alone: per-class weights fitted against a real tokenizer,
counted at C speed over its UTF-8 bytes."""

from __future__ import annotations

import string
from collections.abc import Callable

# Per-character token weights, fitted (least squares on relative error) against o200k_base on bench/corpus.py
# (prose, code, JSON, logs, CJK, base64) plus real stdlib code and license text, then rounded. Counting runs on
# UTF-8 bytes with C-speed translate/count; the base64 scan only runs on capital-heavy, space-poor text.
_PUNCT = string.punctuation.encode()
_DIGITS = string.digits.encode()
_UPPER = string.ascii_uppercase.encode()
# base64, keys, hashes: runs of at least _DENSE_MIN of _DENSE_CLASS's characters, each run whole (what the regex
# [A-Za-z0-9+/=]{32,} finds). Every byte of the class maps to b"x", every other byte to b" ": the class is ASCII, so
# UTF-8 bytes beyond ASCII break runs as their characters do, and the runs are found with bytes.find at C speed (the
# regex, which tries each start of every shorter run, took ~0.5 ms over a 30,000-character page with one hash in it)
_DENSE_CLASS = string.ascii_letters + string.digits + "+/="
_DENSE_MIN = 32
_RUN_MARKS = bytes(ord("x") if chr(b) in _DENSE_CLASS else ord(" ") for b in range(256))
_RUN = b"x" * _DENSE_MIN
W_LOWER = 0.065  # lowercase letters and other ASCII: common words merge into few tokens
W_UPPER = 0.2
W_SPACE = 0.75  # about one word per space
W_PUNCT = 0.55  # code and JSON punctuation seldom merges
W_DIGIT = 0.75
W_NEWLINE = 1.4
W_DOUBLE_SPACE = -1.3  # runs of spaces (indentation) are one token
W_EXTRA_BYTE = 0.33  # each UTF-8 byte beyond the first: CJK ~0.75 token per character
W_DENSE = 0.7
SAFETY = 1.06


TEXT_MEMO_MIN = 64  # texts at least this long are kept with their estimate (TextEstimates)
# ... and at most this long: a longer one is a message's (a tool output), which the estimator keeps per message; kept
# here too it would only push the system prompt out (30 such outputs fill TEXT_MEMO_CHARS)
TEXT_MEMO_MAX = 16_384
TEXT_MEMO_CHARS = 1_000_000  # characters of the texts kept (all dropped past this or TEXT_MEMO_ENTRIES: bounds memory)
TEXT_MEMO_ENTRIES = 4_096


class TextEstimates:
    """The estimates of texts seen before, by value: a turn estimates its system prompt (rebuilt each turn, equal)
    several times, and a text of a few KB takes ~10x longer to weigh than to look up."""

    def __init__(self) -> None:
        self._tokens: dict[str, int] = {}
        self._chars = 0

    def tokens(self, text: str, estimate: Callable[[str], int]) -> int:
        """`estimate(text)`, kept for a text of TEXT_MEMO_MIN to TEXT_MEMO_MAX characters (the same function every
        call)."""
        if not TEXT_MEMO_MIN <= len(text) <= TEXT_MEMO_MAX:
            return estimate(text)
        tokens = self._tokens.get(text)
        if tokens is None:
            tokens = estimate(text)
            if self._chars + len(text) > TEXT_MEMO_CHARS or len(self._tokens) >= TEXT_MEMO_ENTRIES:
                self._tokens.clear()
                self._chars = 0
            self._tokens[text] = tokens
            self._chars += len(text)
        return tokens


def weighted_tokens(text: str) -> int:
    """Tokens of a text by its characters' weights, with a safety margin (the estimator keeps at least characters/4)."""
    estimate = _weighted(text)
    if estimate[1] * 4 > estimate[2]:
        dense = dense_runs(text)  # capital-heavy, space-poor: the base64-like runs weigh W_DENSE a character
        if dense:
            estimate = [a - b for a, b in zip(estimate, _weighted(dense), strict=True)]
            estimate[0] += len(dense) * W_DENSE
    return int(estimate[0] * SAFETY + 0.999)


def dense_runs(text: str) -> str:
    """The text's runs of at least _DENSE_MIN base64 characters ([A-Za-z0-9+/=]), joined."""
    data = text.encode("utf-8", errors="replace")
    marks = data.translate(_RUN_MARKS)
    start = marks.find(_RUN)
    if start < 0:
        return ""
    runs: list[bytes] = []
    while start >= 0:
        end = marks.find(b" ", start + _DENSE_MIN)
        if end < 0:
            end = len(marks)
        runs.append(data[start:end])
        start = marks.find(_RUN, end)
    return b"".join(runs).decode("ascii")


def _weighted(text: str) -> list[float]:
    """[weighted token sum, capitals, spaces] of a text."""
    data = text.encode("utf-8", errors="replace")
    size = len(data)
    punct = size - len(data.translate(None, _PUNCT))
    digits = size - len(data.translate(None, _DIGITS))
    upper = size - len(data.translate(None, _UPPER))
    spaces = data.count(b" ")
    newlines = data.count(b"\n")
    doubles = data.count(b"  ")
    extra = size - len(text)
    lower = len(text) - punct - digits - upper - spaces - newlines
    total = (
        lower * W_LOWER + upper * W_UPPER + spaces * W_SPACE + punct * W_PUNCT + digits * W_DIGIT
        + newlines * W_NEWLINE + doubles * W_DOUBLE_SPACE + extra * W_EXTRA_BYTE
    )
    return [total, float(upper), float(spaces)]
