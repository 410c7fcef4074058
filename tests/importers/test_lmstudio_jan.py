"""LM Studio's conversation files and Jan's thread folders, read from the folders those apps keep."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
from data.importing.archive_files import attach_archive_files
from data.importing.folders import read_jan, read_lmstudio
from domain.chat.tree import Tree
from domain.errors import InvalidInput
from domain.importers import lmstudio
from domain.models import MessageType
from tests.contracts.conftest import fake_store
from tests.importers.test_readers import _import

FIXTURES = Path(__file__).parent / "fixtures"


def test_lm_studio_keeps_versions_as_branches_thinking_tool_rounds_and_the_prompt() -> None:
    store = fake_store()
    result = _import(store, read_lmstudio(FIXTURES / "lmstudio"))
    assert set(result.imported) == {"lmstudio-1736789912980", "lmstudio-1712000000000"}
    sid = "lmstudio-1736789912980"
    session = store.sessions.get(sid)
    assert session is not None and session.title == "Rust lifetimes"
    assert session.system_prompt == "You are a patient Rust tutor."
    path = store.messages.snapshot(sid)
    assert [m.type for m in path] == [MessageType.USER, MessageType.AI_RESPONSE, MessageType.USER,
                                      MessageType.TOOL_CALL, MessageType.TOOL_RESULT, MessageType.AI_RESPONSE]
    question, answer = path[0], path[1]
    assert question.content == "Why does this not compile?\n[attachment: main.rs (not in the conversation file)]"
    assert answer.content.startswith("`s` is dropped at the end of the inner block")
    assert answer.thinking_content == "The reference to `s` escapes the block where `s` is dropped."
    assert (answer.model_id, answer.input_tokens, answer.output_tokens) == ("deepseek-r1-distill-qwen-7b", 180, 96)
    # a reply's time is its first step's (stepIdentifier starts with it, in ms); a question has none of its own
    assert answer.created_at == datetime.fromtimestamp(1736789960.222, UTC)
    assert path[2].created_at == answer.created_at and question.created_at == session.created_at
    assert session.updated_at == datetime.fromtimestamp(1736790000.7, UTC)  # assistantLastMessagedAt
    call, output, reply = path[3:]
    assert (call.tool_name, json.loads(call.tool_input or ""), output.tool_output) == (
        "get_time", {"timezone": "Asia/Tokyo"}, '{"time": "21:04"}')
    assert output.tool_call_id == call.tool_call_id and reply.content == "It is 21:04 in Tokyo."
    branches = Tree(store.messages.tree(sid)).branches()
    assert sorted((b.length, b.active) for b in branches) == [(2, False), (6, True)]
    old = store.messages.snapshot("lmstudio-1712000000000")
    assert old[0].content == "One about rain."
    old_session = store.sessions.get("lmstudio-1712000000000")
    assert old_session is not None and old_session.system_prompt == "You write haiku."


def test_jan_threads_keep_instructions_thinking_tool_calls_and_embedded_images(tmp_path: Path) -> None:
    conversations = attach_archive_files(read_jan(FIXTURES / "jan"), None,
                                         AttachmentIntake(AttachmentFiles(tmp_path / "files")))
    store = fake_store()
    result = _import(store, conversations)
    assert result.imported == ("jan-jan_1717400000", "jan-jan_1717500000", "jan-jan_1723493088", "jan-thr")
    leaf = store.messages.snapshot("jan-jan_1717400000")
    assert leaf[0].content == "Why is this leaf green?" and [a.width for a in leaf[0].attachments] == [16]
    assert leaf[1].content == "Chlorophyll." and leaf[1].model_id == "llama3.2-3b-instruct"
    assert leaf[1].thinking_content == "Leaves look green because chlorophyll reflects green light."
    session = store.sessions.get("jan-jan_1717400000")
    assert session is not None and session.system_prompt == "You are a botanist."
    weather = store.messages.snapshot("jan-jan_1717500000")
    assert [m.type for m in weather] == [MessageType.USER, MessageType.TOOL_CALL, MessageType.TOOL_RESULT,
                                         MessageType.AI_RESPONSE]
    assert (weather[1].tool_name, weather[2].tool_output, weather[3].content) == ("get_weather", "sunny, 24C",
                                                                                  "It is sunny, 24°C.")


def test_lm_studio_tool_calls_in_the_sdks_chat_history_shape_still_import() -> None:
    """The SDK's shape (lmstudio-js ChatHistoryData: the request nested under `toolCallRequest`, its result in a `tool`
    message naming `toolCallId`), which the fixture no longer uses now that it has the files' flat parts."""
    def step(*parts: object) -> dict[str, object]:
        return {"type": "contentBlock", "content": list(parts)}
    data = {"createdAt": 1736790000000, "messages": [
        {"versions": [{"type": "singleStep", "role": "user", "content": [{"type": "text", "text": "Time?"}]}]},
        {"versions": [{"type": "multiStep", "role": "assistant", "steps": [
            step({"type": "toolCallRequest", "toolCallRequest": {"id": "c1", "type": "function", "name": "now",
                                                                  "arguments": {"tz": "UTC"}}}),
            step({"type": "text", "text": "Noon."})]}]},
        {"versions": [{"type": "singleStep", "role": "tool",
                       "content": [{"type": "toolCallResult", "toolCallId": "c1", "content": "12:00"}]}]}]}
    conversation = lmstudio.conversation(data, "1736790000000", "inline")
    kinds = [(m.type, m.tool_name, m.tool_input, m.tool_output, m.content) for m in conversation.messages]
    assert kinds[1:] == [(MessageType.TOOL_CALL, "now", '{"tz": "UTC"}', None, ""),
                         (MessageType.TOOL_RESULT, "now", None, "12:00", ""),
                         (MessageType.AI_RESPONSE, None, None, None, "Noon.")]


def test_jans_own_thread_folder_from_its_e2e_seed_imports_its_message() -> None:
    """The thread Jan's end-to-end tests write into its threads folder (fixtures/jan/SOURCE.md): the legacy layout
    (times in ms, `created`, an empty `instructions`, the retrieval tool's settings), read as Jan wrote it."""
    store = fake_store()
    result = _import(store, read_jan(FIXTURES / "jan" / "threads" / "jan_1723493088"))
    assert result.imported == ("jan-jan_1723493088",)
    session = store.sessions.get("jan-jan_1723493088")
    assert session is not None and (session.title, session.system_prompt) == ("New Thread", None)
    assert session.created_at.isoformat() == "2024-08-12T20:04:48.249000+00:00"
    [hey] = store.messages.snapshot("jan-jan_1723493088")
    assert (hey.type, hey.content, hey.id) == (MessageType.USER, "hey", "jan-jan_1723493088/01J5437S21MX7S1NA1W3QZJ6B9")
    assert hey.created_at is not None and hey.created_at.isoformat() == "2024-08-12T20:07:26.017000+00:00"


def test_a_folder_without_threads_or_conversations_is_refused_with_a_sentence(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no Jan threads"):
        read_jan(tmp_path)
    with pytest.raises(InvalidInput, match="no LM Studio"):
        read_lmstudio(tmp_path)
