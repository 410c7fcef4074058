"""fit_to_budget: the double fallback keeps the summary plus as many newest whole turns as fit."""

from __future__ import annotations

from domain.context.builder import BuiltRequest, CompactAwareMessageBuilder
from domain.context.estimator import TokenEstimator
from domain.context.pruner import HARD_CLEAR_TEXT, result_text
from domain.models import MessageType
from tests.domain.conversation import Conversation
from tests.domain.invariants import assert_valid_request

EST = TokenEstimator()
BUILDER = CompactAwareMessageBuilder()


def test_a_request_within_budget_is_returned_unchanged() -> None:
    c = Conversation()
    c.exchange("hi", "hello")
    request = BuiltRequest("P", c.messages)
    assert BUILDER.fit_to_budget(request, 10_000, EST) == request


def test_only_the_newest_whole_turns_that_fit_are_kept() -> None:
    c = Conversation()
    for i in range(10):
        c.exchange(f"q{i} " + "w " * 400, f"a{i} " + "w " * 400)
    c.user("latest question")
    request = BuiltRequest("Summary-bearing prompt", c.messages)
    budget = EST.estimate_request(request.system_prompt, c.messages[-5:])
    fitted = BUILDER.fit_to_budget(request, budget, EST)
    assert fitted.system_prompt == request.system_prompt
    assert fitted.messages == c.messages[-5:]
    assert_valid_request(fitted.messages)


def test_an_oversized_newest_turn_is_shrunk_but_stays_sendable() -> None:
    c = Conversation()
    c.exchange("old", "old answer")
    c.user("analyse these logs")
    for i in range(5):
        c.tool_round(f"log {i} " + "line " * 5_000, text=f"reading part {i}")
    request = BuiltRequest("P", c.messages)
    fitted = BUILDER.fit_to_budget(request, 3_000, EST)
    assert EST.estimate_request("P", fitted.messages) <= 3_000
    assert_valid_request(fitted.messages)
    assert fitted.messages[0].content == "analyse these logs"
    assert fitted.messages[-1].type is MessageType.TOOL_RESULT


def test_when_nothing_fits_the_smallest_valid_request_is_returned() -> None:
    c = Conversation()
    c.user("tiny")
    c.tool_round("x " * 10_000)
    fitted = BUILDER.fit_to_budget(BuiltRequest("P", c.messages), 5, EST)
    assert_valid_request(fitted.messages)
    assert result_text(fitted.messages[-1]).startswith(HARD_CLEAR_TEXT)
