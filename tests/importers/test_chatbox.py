"""Chatbox's backup, in its current layout (sessions under `session:<id>`, content parts, forks, threads) and its
layout before 1.12 (`chat-sessions` with plain `content`)."""

from __future__ import annotations

import json
from pathlib import Path

from domain.chat.tree import Tree
from domain.importers.chatbox import read_chatbox
from domain.models import MessageType
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
