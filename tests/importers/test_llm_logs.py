"""simonw's llm logs.db, as llm 0.36 (its message store) and llm 0.27.1 (its responses table) wrote it."""

from __future__ import annotations

from pathlib import Path

import pytest

from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
from data.importing.llm_logs import read_llm
from domain.attachment import AttachmentKind
from domain.errors import InvalidInput
from domain.models import MessageType
from tests.contracts.conftest import fake_store
from tests.importers.test_readers import _import

FIXTURES = Path(__file__).parent / "fixtures" / "llm"


@pytest.mark.parametrize(("db", "version"), [("logs-0.36.db", "0.36"), ("logs-0.27.1.db", "0.27.1")])
def test_every_llm_conversation_is_imported_with_its_system_prompt_tools_and_follow_ups(
        db: str, version: str, tmp_path: Path) -> None:
    intake = AttachmentIntake(AttachmentFiles(tmp_path / "files"))
    conversations = read_llm(FIXTURES / db, intake.from_bytes, intake.from_path)
    store = fake_store()
    result = _import(store, conversations)
    assert len(result.imported) == 6
    by_title = {c.title: c for c in conversations}
    assert set(by_title) == {"What is the capital of France?", "Name a prime number",
                             "Which llm version am I running?", "What is in this picture?",
                             "Ports: 80, 443, 8080 What does …", "What is the answer to everythin…"}  # llm's names
    fragment = store.messages.snapshot(by_title["Ports: 80, 443, 8080 What does …"].session_id)
    assert [m.content for m in fragment] == ["Ports: 80, 443, 8080\n\nWhat does this file list?",
                                             "It lists three ports."]
    france = store.messages.snapshot(by_title["What is the capital of France?"].session_id)
    assert [(m.type, m.content) for m in france] == [
        (MessageType.USER, "What is the capital of France?"),
        (MessageType.AI_RESPONSE, "Paris is the capital of France."),
        (MessageType.USER, "And of Germany?"), (MessageType.AI_RESPONSE, "Berlin is the capital of Germany.")]
    assert france[1].model_id == "fakegpt" and france[1].input_tokens == 13
    assert by_title["Name a prime number"].system_prompt == "You are terse."
    tools = [m for m in store.messages.snapshot(by_title["Which llm version am I running?"].session_id) if m.content
             or m.type in (MessageType.TOOL_CALL, MessageType.TOOL_RESULT)]
    assert [m.type for m in tools] == [MessageType.USER, MessageType.TOOL_CALL, MessageType.TOOL_RESULT,
                                       MessageType.AI_RESPONSE]
    assert (tools[1].tool_name, tools[1].tool_call_id, tools[2].tool_call_id, tools[2].tool_output) == (
        "llm_version", "call_v1", "call_v1", version)
    assert tools[-1].content == f"You are running llm {version}."


def test_an_attachment_whose_bytes_are_in_the_database_becomes_a_real_attachment(tmp_path: Path) -> None:
    intake = AttachmentIntake(AttachmentFiles(tmp_path / "files"))
    picture = next(c for c in read_llm(FIXTURES / "logs-0.36.db", intake.from_bytes, intake.from_path)
                   if c.title == "What is in this picture?")
    question = picture.messages[0]
    assert question.content == "What is in this picture?"
    assert [(a.kind, a.width, a.height) for a in question.attachments] == [(AttachmentKind.IMAGE, 32, 24)]


def test_an_attachment_whose_file_is_gone_stays_a_placeholder_line(tmp_path: Path) -> None:
    intake = AttachmentIntake(AttachmentFiles(tmp_path / "files"))
    picture = next(c for c in read_llm(FIXTURES / "logs-0.27.1.db", intake.from_bytes, intake.from_path)
                   if c.title == "What is in this picture?")
    question = picture.messages[0]
    assert not question.attachments
    assert question.content == ("What is in this picture?\n[attachment: /tmp/llmgen/old/blue.png (image/png; "
                                "not in the database)]")


def test_a_file_that_is_not_an_sqlite_database_is_refused_with_a_sentence(tmp_path: Path) -> None:
    other = tmp_path / "logs.db"
    other.write_text("[]", encoding="utf-8")
    with pytest.raises(InvalidInput, match="not an SQLite database"):
        read_llm(other)
