"""Stored messages become valid provider turns: calls paired with results, roles alternating, nothing invalid sent."""

from __future__ import annotations

from data.providers.anthropic_shape import anthropic_messages, safe_tool_id
from data.providers.conversation import (
    CONTINUE_PLACEHOLDER,
    INTERRUPTED_RESULT,
    CallBlock,
    ResultBlock,
    TextBlock,
    parse_tool_input,
    to_turns,
)
from data.providers.gemini_shape import SKIP_SIGNATURE, gemini_contents
from data.providers.openai_shape import MAX_ID_LENGTH, openai_messages
from tests.providers.helpers import History


def test_error_messages_are_never_sent():
    turns = to_turns(History().user("hi").error("network down").ai("hello").messages)
    assert [(t.role, t.blocks) for t in turns] == [("user", (TextBlock("hi"),)), ("assistant", (TextBlock("hello"),))]


def test_tool_results_follow_their_call_turn_in_call_order():
    history = (
        History().user("q").ai("checking").call("a", "t", {"x": 1}).call("b", "t", {"x": 2})
        .result("b", "t", "two").result("a", "t", "one").ai("done")
    )
    turns = to_turns(history.messages)
    assert [t.role for t in turns] == ["user", "assistant", "user", "assistant"]
    assert turns[2].blocks == (ResultBlock("a", "t", "one", False), ResultBlock("b", "t", "two", False))


def test_a_call_without_a_result_gets_a_synthesized_error_result():
    turns = to_turns(History().user("q").ai().call("a", "t", {}).user("never mind").messages)
    assert turns[2].blocks == (ResultBlock("a", "t", INTERRUPTED_RESULT, True), TextBlock("never mind"))


def test_a_result_without_its_call_is_dropped():
    turns = to_turns(History().user("q").result("ghost", "t", "boo").ai("hi").messages)
    assert [t.role for t in turns] == ["user", "assistant"]
    assert all(not isinstance(b, ResultBlock) for t in turns for b in t.blocks)


def test_a_history_starting_with_the_assistant_gets_a_user_placeholder_first():
    turns = to_turns(History().ai("summary continues").user("next").messages)
    assert turns[0].blocks == (TextBlock(CONTINUE_PLACEHOLDER),)
    assert to_turns([])[0].role == "user"


def test_consecutive_user_messages_merge_into_one_turn():
    turns = to_turns(History().user("one").user("two").ai("ok").messages)
    assert turns[0].blocks == (TextBlock("one"), TextBlock("two"))


def test_an_empty_ai_response_before_tool_calls_adds_no_empty_text():
    turns = to_turns(History().user("q").ai("").call("a", "t", {"k": "v"}).result("a", "t", "r").messages)
    assert turns[1].blocks == (CallBlock("a", "t", {"k": "v"}),)


def test_consecutive_tool_rounds_become_separate_assistant_turns():
    history = (
        History().user("q").ai("first").call("a", "t", {}).result("a", "t", "1")
        .ai("second").call("b", "t", {}).result("b", "t", "2").ai("final")
    )
    roles = [t.role for t in to_turns(history.messages)]
    assert roles == ["user", "assistant", "user", "assistant", "user", "assistant"]


def test_stored_tool_input_that_is_not_a_json_object_is_kept_not_lost():
    assert parse_tool_input('{"a": 1}') == {"a": 1}
    assert parse_tool_input("not json") == {"input": "not json"}
    assert parse_tool_input("[1, 2]") == {"input": [1, 2]}
    assert parse_tool_input(None) == {}


def test_anthropic_marks_error_results_and_caches_the_last_block():
    history = History().user("q").ai().call("a", "t", {}).result("a", "t", "boom", error=True)
    shaped = anthropic_messages(history.messages)
    result = shaped[-1]["content"][0]
    assert result["type"] == "tool_result" and result["is_error"] is True
    assert result["cache_control"] == {"type": "ephemeral"}
    assert sum("cache_control" in block for m in shaped for block in m["content"]) == 1


def test_anthropic_tool_ids_from_other_providers_are_made_safe_consistently():
    shaped = anthropic_messages(History().user("q").ai().call("fc/1.2", "t", {}).result("fc/1.2", "t", "r").messages)
    assert shaped[1]["content"][0]["id"] == shaped[2]["content"][0]["tool_use_id"] == safe_tool_id("fc/1.2") == "fc_1_2"


def test_openai_sends_tool_messages_and_shortens_long_ids_for_call_and_result_alike():
    long_id = "toolu_" + "x" * 60
    history = History().user("q").ai().call(long_id, "t", {}).result(long_id, "t", "no", error=True)
    shaped = openai_messages("sys", history.messages)
    assert [m["role"] for m in shaped] == ["system", "user", "assistant", "tool"]
    call_id = shaped[2]["tool_calls"][0]["id"]
    assert call_id == shaped[3]["tool_call_id"] and len(call_id) <= MAX_ID_LENGTH
    assert shaped[2]["content"] is None and shaped[3]["content"] == "Error: no"


def test_gemini_sends_function_responses_as_user_parts_and_signs_the_first_call_of_a_turn():
    history = History().user("q").ai().call("a", "t", {"x": 1}).call("b", "t", {})
    history.result("a", "t", "1").result("b", "t", "2")
    contents = gemini_contents(history.messages)
    assert [c.role for c in contents] == ["user", "model", "user"]
    calls = contents[1].parts or []
    assert calls[0].thought_signature is not None and calls[1].thought_signature is None
    responses = [p.function_response for p in contents[2].parts or [] if p.function_response is not None]
    assert [(r.id, r.name, r.response) for r in responses] == [("a", "t", {"output": "1"}), ("b", "t", {"output": "2"})]


def test_the_gemini_signature_sentinel_is_sent_verbatim_by_the_sdk():
    from google.genai import types

    part = gemini_contents(History().user("q").ai().call("a", "t", {}).result("a", "t", "r").messages)[1].parts
    dumped = types.Part.model_validate(part[0]).model_dump(mode="json", exclude_none=True) if part else {}
    assert dumped["thought_signature"] == SKIP_SIGNATURE


def test_without_tools_offered_calls_and_results_are_sent_as_text():
    history = History().user("q").ai("checking").call("a", "t", {"k": 1}).result("a", "t", "boom", error=True)
    turns = to_turns(history.user("thanks").messages, tool_blocks=False)
    assert [t.role for t in turns] == ["user", "assistant", "user"]
    assert turns[1].blocks == (TextBlock("checking"), TextBlock('[called tool t with {"k": 1}]'))
    assert turns[2].blocks == (TextBlock("[error from tool t: boom]"), TextBlock("thanks"))
    shaped = anthropic_messages(history.messages, tool_blocks=False)
    assert all(block["type"] == "text" for message in shaped for block in message["content"])
