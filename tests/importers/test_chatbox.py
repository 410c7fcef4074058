"""Chatbox's backup, in its current layout (sessions under `session:<id>`, content parts, forks, threads) and its
layout before 1.12 (`chat-sessions` with plain `content`)."""

from __future__ import annotations

import json
from pathlib import Path

from domain.chat.tree import Tree
from domain.importers.chatbox import read_chatbox
from domain.models import MessageType, ToolStatus
from tests.contracts.conftest import fake_store
from tests.importers.test_readers import _import

FIXTURES = Path(__file__).parent / "fixtures" / "chatbox"
FLIGHT = "chatbox-9b1f3c2e-4d5a-4e6b-8c7d-0e1f2a3b4c5d"


def _stored(name: str):  # type: ignore[no-untyped-def]
    store = fake_store()
    result = _import(store, read_chatbox((FIXTURES / name).read_text(encoding="utf-8")))
    return store, result


def test_a_current_backup_keeps_prompts_reasoning_tool_rounds_forks_and_threads() -> None:
    store, result = _stored("chatbox-exported-data-2025-6-1.json")
    assert set(result.imported) == {"chatbox-55d92e88-02af-4c3b-a378-aa0a1970abb1", FLIGHT, FLIGHT + "-t-old-1"}
    social = store.sessions.get("chatbox-55d92e88-02af-4c3b-a378-aa0a1970abb1")
    assert social is not None and social.system_prompt is not None
    assert social.system_prompt.startswith("I want you to act as a social media influencer.")
    flight = store.messages.snapshot(FLIGHT)
    assert [m.type for m in flight] == [MessageType.USER, MessageType.TOOL_CALL, MessageType.TOOL_RESULT,
                                        MessageType.AI_RESPONSE]
    question, call, result_message, answer = flight
    assert question.content.startswith("How long is a flight from Berlin to Lisbon?")
    assert "[image: picture:u1:2f6c1a0e-ticket (not in the backup)]" in question.content
    assert "[attachment: itinerary.pdf (not in the backup)]" in question.content
    assert (call.tool_name, json.loads(call.tool_input or "")) == ("web_search", {"query": "Berlin Lisbon flight "
                                                                                           "duration"})
    assert "3h 35m nonstop" in (result_message.tool_output or "")
    assert answer.content == "A nonstop flight takes about 3 hours 35 minutes."
    assert answer.thinking_content is not None and "BER-LIS" in answer.thinking_content
    assert (answer.model_id, answer.input_tokens, answer.output_tokens) == ("gpt-4o", 812, 64)
    branches = Tree(store.messages.tree(FLIGHT)).branches()
    assert sorted((b.length, b.active) for b in branches) == [(2, False), (4, True)]
    old = store.messages.snapshot(FLIGHT + "-t-old-1")
    assert [m.content for m in old] == ["What should I pack for Lisbon?", "Light layers and comfortable shoes."]


def test_a_backup_from_before_content_parts_reads_plain_content() -> None:
    store, result = _stored("chatbox-exported-data-2023-5-2.json")
    sid = "chatbox-6dafa15e-c72f-4036-ac89-33c09e875bdc"
    assert result.imported == (sid,)
    session = store.sessions.get(sid)
    assert session is not None and session.title == "Travel Guide (Example)"
    assert session.system_prompt is not None and session.system_prompt.startswith("I want you to act as a travel")
    path = store.messages.snapshot(sid)
    assert path[0].content == "Give me a 7-day travel itinerary for Japan"
    assert path[1].content.startswith("Sure, here's a 7-day itinerary") and path[1].model_id is None


def test_an_images_ocr_text_is_kept_as_chatbox_sent_it_to_models_without_vision() -> None:
    """Chatbox keeps an image's OCR text on the part (`ocrResult`) and sends it instead of the image to a model
    without vision (`src/renderer/packages/model-calls/message-utils.ts`); the image's bytes are not in a backup."""
    session = {"id": "s1", "name": "Receipt", "messages": [{"id": "u1", "role": "user", "timestamp": 1748736000000,
                                                            "contentParts": [
                                                                {"type": "text", "text": "Total?"},
                                                                {"type": "image", "storageKey": "picture:r1",
                                                                 "ocrResult": "TOTAL 12.40 EUR"}]}]}
    [conversation] = read_chatbox(json.dumps({"session:s1": session, "chat-sessions-list": [{"id": "s1"}]}))
    assert conversation.messages[0].content == ("Total?\n[image: picture:r1 (not in the backup)]\n"
                                                "This is an image, OCR Result: \nTOTAL 12.40 EUR")


OWN = "chatbox-exported-data-2026-11-27.json"  # written by Chatbox's own code (fixtures/chatbox/SOURCE.md)
LISBON = "chatbox-d6f0c2a4-7b1e-4c3a-9f5d-2e8b6a1c0f93"


def test_a_backup_written_by_chatboxs_own_code_keeps_the_open_fork_tool_rounds_and_the_earlier_thread() -> None:
    store, result = _stored(OWN)
    earlier = LISBON + "-d5f4e000-5782-48f4-8942-7af3f02b5694"
    assert set(result.imported) == {LISBON, earlier}
    session = store.sessions.get(LISBON)
    assert session is not None and (session.title, session.system_prompt) == ("Lisbon trip",
                                                                              "You are a helpful assistant.")
    path = store.messages.snapshot(LISBON)
    assert [m.type for m in path] == [MessageType.USER, MessageType.TOOL_CALL, MessageType.TOOL_RESULT,
                                      MessageType.AI_RESPONSE, MessageType.USER, MessageType.TOOL_CALL,
                                      MessageType.TOOL_RESULT, MessageType.AI_RESPONSE]
    question, call, found, answer = path[:4]
    assert question.content.startswith("How long is a flight from Berlin to Lisbon? Here is my ticket.\n[image: "
                                       "picture:user:d6f0c2a4-7b1e-4c3a-9f5d-2e8b6a1c0f93:")
    assert question.content.endswith("[attachment: itinerary.pdf (not in the backup)]")
    assert (call.tool_name, json.loads(call.tool_input or "")) == ("web_search",
                                                                    {"query": "Berlin Lisbon flight duration"})
    assert json.loads(found.tool_output or "")["searchResults"][0]["snippet"] == "3h 35m nonstop"
    assert answer.content == "A nonstop flight takes about 3 hours 35 minutes."
    assert answer.thinking_content == "Check a search for BER-LIS flight times."
    # the reply's usage is Chatbox's (the AI SDK's total over the reply's two model calls)
    assert (answer.model_id, answer.input_tokens, answer.output_tokens) == ("gpt-4o", 2494, 42)
    branches = Tree(store.messages.tree(LISBON)).branches()
    assert sorted((b.length, b.active) for b in branches) == [(2, False), (8, True)]
    old = store.messages.snapshot(earlier)
    assert [m.content for m in old] == ["What should I pack for Lisbon in May?",
                                        "Light layers, a rain jacket and comfortable shoes for the hills."]


def test_a_failed_tool_call_keeps_its_error_message_not_chatboxs_stored_stack() -> None:
    """Chatbox stores a failed tool call's result as `{"error": {"name", "message", "stack"}, "input", "toolName"}`
    (`AbstractAISDKModel.processToolErrors`); the result shown and sent on is the error's message."""
    store, _ = _stored(OWN)
    failed = store.messages.snapshot(LISBON)[6]
    assert (failed.type, failed.tool_status, failed.tool_output) == (MessageType.TOOL_RESULT, ToolStatus.ERROR,
                                                                     "search quota exceeded")
