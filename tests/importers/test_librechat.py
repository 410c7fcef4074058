"""LibreChat's conversation export: its own published samples (a recursive tree; a flat list with branches) and an
agents reply with reasoning and a tool call."""

from __future__ import annotations

import json
from pathlib import Path

from domain.chat.tree import Tree
from domain.importers.librechat import read_librechat
from domain.models import MessageType
from tests.contracts.conftest import fake_store
from tests.importers.test_readers import _import

FIXTURES = Path(__file__).parent / "fixtures" / "librechat"


def test_a_recursive_export_is_one_conversation_in_order() -> None:
    store = fake_store()
    result = _import(store, read_librechat((FIXTURES / "librechat-export.json").read_text(encoding="utf-8")))
    sid = "librechat-af1ea676-f525-444f-a9ed-7c8dbf062733"
    assert result.imported == (sid,)
    path = store.messages.snapshot(sid)
    assert [m.type for m in path] == [MessageType.USER, MessageType.AI_RESPONSE] * 3
    assert path[0].content.startswith("What is the fuel consumption") and path[-1].model_id == "gpt-3.5-turbo"
    assert "fully loaded" in path[4].content


def test_a_flat_export_keeps_edited_questions_and_regenerated_replies_as_branches() -> None:
    store = fake_store()
    conversations = read_librechat((FIXTURES / "librechat-opts-nonr-branches.json").read_text(encoding="utf-8"))
    _import(store, conversations)
    sid = "librechat-27b593be-9500-479c-94cb-050cab8f5033"
    branches = Tree(store.messages.tree(sid)).branches()
    assert sorted((b.length, b.active) for b in branches) == [(2, False), (2, False), (2, True)]
    path = store.messages.snapshot(sid)
    assert path[0].content == "tell me a long long story"
    unfinished = next(m for m in conversations[0].messages if m.id.endswith("303e4c2c-f03e-4e0a-8551-c96ec73be5fe"))
    assert unfinished.type is MessageType.AI_RESPONSE and unfinished.incomplete


def test_an_agents_reply_keeps_its_reasoning_and_tool_round_and_an_error_is_not_a_reply() -> None:
    root = "00000000-0000-0000-0000-000000000000"
    export = {
        "conversationId": "c-agents", "title": "Weather", "recursive": False,
        "options": {"model": "claude-sonnet-4", "promptPrefix": "Be brief."},
        "messages": [
            {"messageId": "m1", "parentMessageId": root, "isCreatedByUser": True, "sender": "User",
             "text": "Weather in Oslo?", "createdAt": "2025-03-01T10:00:00.000Z"},
            {"messageId": "m2", "parentMessageId": "m1", "isCreatedByUser": False, "sender": "Agent",
             "createdAt": "2025-03-01T10:00:03.000Z", "text": "", "content": [
                 {"type": "think", "think": "I should look it up."},
                 {"type": "tool_call", "tool_call": {"id": "toolu_1", "name": "weather", "args": "{\"city\":\"Oslo\"}",
                                                     "output": "-3C, snow"}},
                 {"type": "text", "text": "It is -3C and snowing."}]},
            {"messageId": "m3", "parentMessageId": "m2", "isCreatedByUser": True, "sender": "User",
             "text": "And tomorrow?", "createdAt": "2025-03-01T10:01:00.000Z"},
            {"messageId": "m4", "parentMessageId": "m3", "isCreatedByUser": False, "sender": "Agent", "error": True,
             "text": "An error occurred while processing the request.", "createdAt": "2025-03-01T10:01:02.000Z"},
        ]}
    store = fake_store()
    _import(store, read_librechat(json.dumps(export)))
    path = store.messages.snapshot("librechat-c-agents")
    assert [m.type for m in path] == [MessageType.USER, MessageType.TOOL_CALL, MessageType.TOOL_RESULT,
                                      MessageType.AI_RESPONSE, MessageType.USER, MessageType.ERROR]
    call, result, reply = path[1:4]
    assert (call.tool_name, json.loads(call.tool_input or ""), result.tool_output) == ("weather", {"city": "Oslo"},
                                                                                      "-3C, snow")
    assert reply.content == "It is -3C and snowing." and reply.thinking_content == "I should look it up."
    session = store.sessions.get("librechat-c-agents")
    assert session is not None and session.system_prompt == "Be brief."
