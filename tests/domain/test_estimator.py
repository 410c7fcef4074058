"""TokenEstimator: content-aware estimates, the chars/4 floor, caching and calibration."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.context.estimator import TokenEstimator, calibration_key, chars_over_four
from domain.models import Message, MessageType, ToolDefinition
from tests.domain.counting import CountingEstimator
from tests.fakes import FakeCalibrationStore


def test_empty_text_is_zero_tokens() -> None:
    assert TokenEstimator().estimate_text("") == 0


def test_estimate_grows_in_proportion_to_length() -> None:
    est = TokenEstimator()
    one = est.estimate_text("The quick brown fox jumps over the lazy dog. " * 10)
    ten = est.estimate_text("The quick brown fox jumps over the lazy dog. " * 100)
    assert 9 * one <= ten <= 11 * one


def test_estimate_is_never_below_characters_over_four() -> None:
    est = TokenEstimator()
    for text in ["hello", "a" * 1001, "word " * 300, "{}" * 50, "日本語" * 20]:
        assert est.estimate_text(text) >= chars_over_four(text)


def test_cjk_counts_about_three_quarters_of_a_token_per_character() -> None:
    text = "这是一个关于上下文管理的中文句子" * 10
    assert TokenEstimator().estimate_text(text) >= len(text) * 0.7


def test_base64_embedded_in_a_line_is_counted_densely() -> None:
    blob = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg" * 20
    assert TokenEstimator().estimate_text(f"image: data:image/png;base64,{blob}") > len(blob) * 0.6


def test_punctuation_dense_json_costs_more_than_prose_of_equal_length() -> None:
    est = TokenEstimator()
    json_text = '{"a": [1, 2, {"b": null}], "c": "x"}, ' * 40
    prose = ("Plain words make a calm and even sentence here. " * 40)[: len(json_text)]
    assert est.estimate_text(json_text) > est.estimate_text(prose)


def test_base64_costs_more_than_characters_over_four() -> None:
    blob = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODkrLw==" * 40
    assert TokenEstimator().estimate_text(blob) > 1.3 * chars_over_four(blob)


def test_message_estimate_counts_tool_input_and_output() -> None:
    est = TokenEstimator()
    bare = Message(id="a", session_id="s", type=MessageType.TOOL_RESULT)
    full = replace(bare, id="b", tool_output="x " * 500)
    assert est.estimate_message(full) > est.estimate_message(bare) + 200


def test_message_estimate_is_cached_but_refreshed_when_content_changes() -> None:
    est = TokenEstimator()
    m = Message(id="a", session_id="s", type=MessageType.USER, content="short")
    first = est.estimate_message(m)
    assert est.estimate_message(m) == first
    longer = replace(m, content="much longer content " * 50)
    assert est.estimate_message(longer) > first


def test_ten_thousand_messages_estimated_warm_measure_no_text_again() -> None:
    # the speed itself (target: under 20 ms warm) is measured by `bench.estimator`, not asserted here
    est = CountingEstimator()
    msgs = [
        Message(id=f"m{i}", session_id="s", type=MessageType.USER, content=f"message number {i} " * 20)
        for i in range(10_000)
    ]
    cold = est.estimate_messages(msgs)
    assert est.texts_measured == 10_000
    copies = [replace(m) for m in msgs]  # equal messages, other objects: answered by id and sizes, not by identity
    assert est.estimate_messages(msgs) == est.estimate_messages(copies) == cold
    assert est.texts_measured == 10_000


def test_tool_definitions_are_estimated_from_name_description_and_schema() -> None:
    tool = ToolDefinition("save_memory", "Saves a durable fact.", {"type": "object", "properties": {"fact": {}}})
    assert TokenEstimator().estimate_tools([tool]) > TokenEstimator().estimate_tools([])


def test_a_tool_definition_is_measured_once_and_again_when_its_schema_is_another() -> None:
    est = TokenEstimator()
    small = ToolDefinition("lookup", "Looks a word up.", {"type": "object", "properties": {"word": {}}})
    first = est.estimate_tools([small])
    assert est.estimate_tools([small]) == first == TokenEstimator().estimate_tools([small])
    # same name and description, a bigger schema (an MCP server listed its tools again): measured anew
    bigger = ToolDefinition("lookup", "Looks a word up.",
                            {"type": "object", "properties": {f"field_{i}": {"type": "string"} for i in range(40)}})
    assert est.estimate_tools([bigger]) == TokenEstimator().estimate_tools([bigger]) > first


def test_calibration_scales_later_estimates_and_is_persisted() -> None:
    store = FakeCalibrationStore()
    est = TokenEstimator(store)
    key = calibration_key("anthropic", "claude-sonnet-4-5")
    msgs = [Message(id="m", session_id="s", type=MessageType.USER, content="hello there " * 400)]
    raw = est.estimate_request("system", msgs)
    est.calibrate(key, reported_input_tokens=int(raw * 1.5), estimated_tokens=raw)
    assert store.get(key) == pytest.approx(1.5, abs=0.01)
    assert est.estimate_request("system", msgs, model_key=key) >= int(raw * 1.49)
    assert TokenEstimator(store).estimate_request("system", msgs, model_key=key) >= int(raw * 1.49)


def test_calibration_is_smoothed_across_reports() -> None:
    store = FakeCalibrationStore()
    est = TokenEstimator(store)
    est.calibrate("p/m", 1_000, 1_000)
    est.calibrate("p/m", 2_000, 1_000)
    ratio = store.get("p/m")
    assert ratio is not None and 1.0 < ratio < 2.0


def test_calibration_ignores_implausible_reports_and_tiny_requests() -> None:
    store = FakeCalibrationStore()
    est = TokenEstimator(store)
    est.calibrate("p/m", 0, 1_000)
    est.calibrate("p/m", 100, 10_000)  # a usage figure that left out cached tokens
    est.calibrate("p/m", 900, 90)  # provider overhead dominates a tiny request
    assert store.get("p/m") is None


def test_calibration_is_clamped_so_estimates_never_shrink_by_more_than_thirty_percent() -> None:
    store = FakeCalibrationStore()
    est = TokenEstimator(store)
    est.calibrate("p/m", 3_000, 10_000)
    assert store.get("p/m") == 0.7
    est.calibrate("q/m", 30_000, 10_000)
    assert store.get("q/m") == 2.5


def test_unknown_model_has_no_calibration() -> None:
    est = TokenEstimator(FakeCalibrationStore())
    assert est.ratio("p/unknown") == 1.0
    assert est.apply_calibration(100, None) == 100
