"""How many first items two sequences share as the same objects, checked in runs at C speed (a turn's lists grow at
their end, so the usual answer is the whole shorter list)."""

from __future__ import annotations

from collections.abc import Sequence
from operator import is_


def same_prefix(a: Sequence[object], b: Sequence[object]) -> int:
    """How many first items `a` and `b` share (the same objects): a binary search of identity runs checked in C."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # a[:lo] is b[:lo]; a[:hi + 1] is not (or hi is the shorter length)
        mid = (lo + hi + 1) // 2
        if all(map(is_, a[lo:mid], b[lo:mid])):
            lo = mid
        else:
            hi = mid - 1
    return lo
