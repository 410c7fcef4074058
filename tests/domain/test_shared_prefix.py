"""same_prefix: the number of first items two sequences share as the same objects, as a plain loop counts it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from domain.context.shared_prefix import same_prefix

POOL = [object() for _ in range(4)]


def _plain(a: list[object], b: list[object]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x is not y:
            break
        n += 1
    return n


@given(a=st.lists(st.sampled_from(POOL), max_size=40), b=st.lists(st.sampled_from(POOL), max_size=40),
       shared=st.integers(0, 40))
def test_same_prefix_counts_what_a_plain_loop_counts(a: list[object], b: list[object], shared: int) -> None:
    common = a[:shared]
    assert same_prefix(common + a, common + b) == _plain(common + a, common + b)


def test_a_grown_list_shares_all_of_the_shorter_one_and_an_equal_copy_shares_nothing() -> None:
    first = [object() for _ in range(100)]
    assert same_prefix(first, [*first, object()]) == 100
    assert same_prefix([[1]], [[1]]) == 0  # equal, not the same object
