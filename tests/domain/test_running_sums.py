"""The estimator's running sums: a request's messages summed once, the gauge after the reply and the next request
adding only what came since; every answer the sum of each message's own estimate, whatever changed in between."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.context.estimator import TokenEstimator
from domain.context.meter import measure_context
from domain.context.running_sums import MIN_MESSAGES, RunningSums
from domain.models import Message, MessageType
from tests.domain.counting import CountingEstimator


def _messages(sizes: list[int]) -> list[Message]:
    out = []
    for n, size in enumerate(sizes):
        kind = MessageType.TOOL_RESULT if size % 3 == 0 else MessageType.USER if n % 2 else MessageType.AI_RESPONSE
        out.append(Message(id=f"m{n}", session_id="s", type=kind, content="word " * size, seq=n + 1))
    return out


def _direct(estimator: TokenEstimator, messages: list[Message]) -> tuple[int, int]:
    results = sum(estimator.estimate_message(m) for m in messages if m.type is MessageType.TOOL_RESULT)
    return results, sum(estimator.estimate_message(m) for m in messages if m.type is not MessageType.TOOL_RESULT)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.lists(st.integers(0, 60), min_size=MIN_MESSAGES, max_size=MIN_MESSAGES + 40),
       steps=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 80), st.integers(0, 60)), max_size=8))
def test_a_growing_list_with_messages_replaced_sums_as_estimating_each_message(
    sizes: list[int], steps: list[tuple[int, int, int]]
) -> None:
    """Messages appended, replaced by another object (a pruned copy: shorter text), or the list cut back."""
    estimator = TokenEstimator()
    messages = _messages(sizes)
    assert estimator.estimate_split(messages) == _direct(estimator, messages)
    for action, at, size in steps:
        if action == 0:
            messages = [*messages, *_messages([size] * 2)[:1]]
            messages[-1] = replace(messages[-1], id=f"new{len(messages)}")
        elif action == 1 and at < len(messages):
            messages[at] = replace(messages[at], content="x" * size)
        elif action == 2:
            messages = messages[:max(1, len(messages) - at % 5)]
        assert estimator.estimate_split(messages) == _direct(estimator, messages)
        assert estimator.estimate_messages(messages) == sum(_direct(estimator, messages))


def test_the_next_list_estimates_only_the_messages_after_those_it_shares() -> None:
    estimator = CountingEstimator()
    messages = _messages([5] * 40)
    estimator.estimate_messages(messages)
    estimator.messages_asked = 0
    grown = [*messages[:-1], replace(messages[-1]), *_messages([7] * 42)[40:]]  # the last one re-read, two new
    assert estimator.estimate_split(grown, limit=10**9) == _direct(TokenEstimator(), grown)
    assert estimator.messages_asked == 3


def test_with_a_limit_nothing_is_summed_without_an_earlier_list_nor_past_the_limit() -> None:
    """The meter then counts newest first and stops past the window, as it did (a 20,000-message session)."""
    sums = RunningSums()
    estimator = TokenEstimator()
    messages = _messages([10] * 50)
    assert sums.split(messages, estimator.estimate_message, limit=10**9) is None
    total = sum(sums.split(messages, estimator.estimate_message) or ())
    assert sums.split(messages, estimator.estimate_message, limit=total) == _direct(estimator, messages)
    assert sums.split(messages, estimator.estimate_message, limit=total - 1) is None
    assert sums.split([*messages, *_messages([10] * 51)[50:]], estimator.estimate_message, limit=total) is None


def test_the_gauge_after_a_request_reads_the_same_as_measured_afresh() -> None:
    """The status measured with the request's sums (then the reply added) equals one from a new estimator."""
    messages = _messages([3, 9, 12, 4] * 10)
    reused = TokenEstimator()
    reused.estimate_request("system", messages)
    after = [*messages, replace(_messages([6])[0], id="reply")]
    for limit in (None, 10**6):
        shown = measure_context(reused, system_prompt="system", summary="s", messages=after, exact_up_to=limit)
        fresh = measure_context(TokenEstimator(), system_prompt="system", summary="s", messages=after,
                                exact_up_to=limit)
        assert shown == fresh
