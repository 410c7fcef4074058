"""The estimator keeps the estimates of longer texts by value (a turn's system prompt, rebuilt equal, is estimated
several times): every answer is the estimate made from scratch, and what is kept stays bounded."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.context import estimator as estimator_module
from domain.context import text_tokens
from domain.context.estimator import TokenEstimator, chars_over_four
from domain.context.text_tokens import TEXT_MEMO_MAX, TEXT_MEMO_MIN, TextEstimates, weighted_tokens


def _scratch(text: str) -> int:
    return max(chars_over_four(text), weighted_tokens(text)) if text else 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=700), min_size=1, max_size=12), st.data())
def test_a_kept_estimate_is_the_estimate_from_scratch(texts: list[str], data: st.DataObject) -> None:
    estimator = TokenEstimator()
    for _ in range(3):  # again, and as new but equal strings
        order = data.draw(st.permutations(texts))
        for text in order:
            assert estimator.estimate_text("".join(list(text))) == _scratch(text)


def test_a_long_text_is_weighed_once_and_a_short_one_each_time(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    weighed: list[int] = []
    real = estimator_module.weighted_tokens

    def counting(text: str) -> int:
        weighed.append(len(text))
        return real(text)

    monkeypatch.setattr(estimator_module, "weighted_tokens", counting)
    estimator = TokenEstimator()
    prompt = "You are a careful assistant. " * 20
    assert len(prompt) >= TEXT_MEMO_MIN
    first = estimator.estimate_text(prompt)
    assert estimator.estimate_text(prompt[:-1] + prompt[-1]) == first  # an equal string built again
    assert estimator.estimate_text("short") == estimator.estimate_text("short")
    output = "a fetched page, " * (TEXT_MEMO_MAX // 16 + 1)  # a tool output: kept per message, not here
    assert estimator.estimate_text(output) == estimator.estimate_text(output)
    assert weighed == [len(prompt), 5, 5, len(output), len(output)]


def test_the_kept_texts_are_dropped_past_their_bound(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(text_tokens, "TEXT_MEMO_CHARS", 1_000)
    estimates = TextEstimates()
    texts = [f"{n} " + "x" * 400 for n in range(5)]
    for text in texts:
        assert estimates.tokens(text, _scratch) == _scratch(text)
    assert sum(map(len, estimates._tokens)) <= 1_000
    monkeypatch.setattr(text_tokens, "TEXT_MEMO_ENTRIES", 3)
    for n in range(10):
        text = f"{n} " + "y" * 100
        assert estimates.tokens(text, _scratch) == _scratch(text)
    assert len(estimates._tokens) <= 3
