"""Jan's threads as Jan writes them today (fixtures/jan-own/SOURCE.md): a reply's content items in order —
`reasoning`, `tool_call` (with its output, or none when the call failed) and `text` — as Jan's own code writes them."""

from __future__ import annotations

import json
from pathlib import Path

from data.importing.folders import read_jan
from domain.models import MessageType
from tests.contracts.conftest import fake_store
from tests.importers.test_readers import _import

FOLDER = Path(__file__).parent / "fixtures" / "jan-own"
LISBON = "jan-66502f7b-80b2-4592-8c1e-9517341bfb9f"
PRIME = "jan-056ea9dc-fc55-45b8-80d8-6e48e7ad69e1"


def test_a_reply_keeps_its_reasoning_items_as_thinking_and_its_tool_call_items_as_rounds() -> None:
    store = fake_store()
    result = _import(store, read_jan(FOLDER))
    assert set(result.imported) == {LISBON, PRIME}
    path = store.messages.snapshot(LISBON)
    assert [m.type for m in path] == [MessageType.USER, MessageType.TOOL_CALL, MessageType.TOOL_RESULT,
                                      MessageType.AI_RESPONSE, MessageType.USER, MessageType.TOOL_CALL,
                                      MessageType.AI_RESPONSE]
    question, call, output, answer = path[:4]
    assert question.content == "What is the weather in Lisbon?"
    assert (call.tool_name, json.loads(call.tool_input or "")) == ("get_weather", {"city": "Lisbon"})
    assert output.tool_output == "Lisbon: 19°C, light wind" and output.tool_call_id == call.tool_call_id
    assert answer.content == "It is 19°C in Lisbon with a light wind."
    assert answer.thinking_content == "The user wants current weather; call the tool for Lisbon."
    assert answer.model_id == "gpt-4o"
    [prime_question, prime] = store.messages.snapshot(PRIME)
    assert prime_question.content == "Name a prime number"
    assert (prime.content, prime.thinking_content, prime.model_id) == ("7", "Any small prime will do.",
                                                                       "llama3.2-3b-instruct")


def test_a_tool_call_jan_stored_without_output_is_a_call_that_never_returned() -> None:
    """Jan keeps a failed call's item without `output` (the AI SDK's error text is not stored): the call is kept, with
    no result (a call that never returned, which continuing the conversation does not send), then the reply's text."""
    store = fake_store()
    _import(store, read_jan(FOLDER))
    call, reply = store.messages.snapshot(LISBON)[5:7]
    assert (call.type, call.tool_name, json.loads(call.tool_input or "")) == (MessageType.TOOL_CALL, "get_weather",
                                                                              {"city": "Porto"})
    assert reply.content == "I could not reach the weather service for Porto just now."

