"""Jan's threads as Jan writes them today (fixtures/jan-own/SOURCE.md): a reply's content items in order —
`reasoning`, `tool_call` (with its output, or none when the call failed) and `text` — as Jan's own code writes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data.importing.folders import read_jan
from domain.chat.tree import Tree
from domain.importers import jan
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



def _msg(mid: str, role: str, text: str, at: int, **metadata: object) -> dict[str, object]:
    """A message as Jan's own tests build one (`msg` in web-app/src/lib/__tests__/message-branching.test.ts)."""
    return {"id": mid, "object": "thread.message", "thread_id": "thr", "role": role,
            "content": [{"type": "text", "text": {"value": text, "annotations": []}}], "status": "ready",
            "created_at": at, "completed_at": at, "metadata": metadata}


THREAD = {"id": "thr", "title": "Versions", "created": 1795770000.5, "updated": 1795770000.5}


def _versions(active_child: str | None) -> list[dict[str, object]]:
    """Jan's test 'reconstructs a full downstream branch': a -> b1 -> c1 and a -> b2 -> c2 (newer), with `a`'s
    `activeChildId` pinned to b1 or not."""
    pinned = {"activeChildId": active_child} if active_child else {}
    return [_msg("a", "user", "q", 1795770001000, parentId=None, **pinned),
            _msg("b1", "assistant", "a1", 1795770002000, parentId="a"),
            _msg("c1", "user", "follow1", 1795770003000, parentId="b1"),
            _msg("b2", "assistant", "a2", 1795770004000, parentId="a"),
            _msg("c2", "user", "follow2", 1795770005000, parentId="b2")]


@pytest.mark.parametrize(("active_child", "shown"), [(None, ["q", "a2", "follow2"]), ("b1", ["q", "a1", "follow1"])])
def test_jans_versions_are_branches_with_the_path_jan_shows_open(active_child: str | None, shown: list[str]) -> None:
    """Jan keeps every version in messages.jsonl, linked by `metadata.parentId` (web-app/src/lib/
    message-branching.ts): the open path is the newest root's active child at each step (`activeChildId`, else the
    newest child); the other versions are branches beside it."""
    store = fake_store()
    _import(store, [jan.conversation(THREAD, _versions(active_child), "inline")])
    assert [m.content for m in store.messages.snapshot("jan-thr")] == shown
    branches = Tree(store.messages.tree("jan-thr")).branches()
    assert sorted((b.length, b.active) for b in branches) == [(3, False), (3, True)]


def test_a_thread_json_without_created_takes_its_updated_time() -> None:
    """`useThreads.createThread` writes `updated` (seconds) and no `created`; Jan adds `created` on a later change."""
    thread = {"id": "new", "title": "New Thread", "updated": 1795770000.5, "assistants": []}
    conversation = jan.conversation(thread, [_msg("u", "user", "hi", 0)], "inline")
    assert conversation.created_at.isoformat() == "2026-11-27T09:00:00.500000+00:00"
