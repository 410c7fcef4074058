"""A real-shaped ChatGPT export: custom instructions become the session's prompt, hidden nodes and reasoning are kept
but never sent, code-interpreter code reads as code, no invented reply between two questions, and the files of the
export's .zip become attachments."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from PIL import Image

from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
from data.importing.archive_files import attach_archive_files
from data.providers.conversation import TextBlock, to_turns
from domain.attachment import AttachmentKind
from domain.context.alternation import is_synthetic, normalize
from domain.importers.chatgpt import read_chatgpt
from domain.models import MessageType
from tests.contracts.conftest import fake_store
from tests.importers.test_readers import _import
from ui.models.chat_rows import format_arguments

FIXTURE = Path(__file__).parent / "fixtures" / "chatgpt" / "conversations.json"
SID = "chatgpt-6790c2a1-3f4e-8000-9d2b-1a2b3c4d5e6f"


def _stored():  # type: ignore[no-untyped-def]
    store = fake_store()
    _import(store, read_chatgpt(FIXTURE.read_text(encoding="utf-8")))
    return store


def test_custom_instructions_become_the_sessions_system_prompt_not_a_message() -> None:
    store = _stored()
    session = store.sessions.get(SID)
    assert session is not None and session.system_prompt is not None
    assert "I live in Kiel" in session.system_prompt and "Use metric units." in session.system_prompt
    tree = store.messages.tree(SID)
    assert len(tree) == 10  # memory, question, thoughts, recap, call, output, answer, two questions, reply
    assert not any("user_editable_context" in n.preview or "I live in Kiel" in n.preview for n in tree)
    first = next(m for m in store.messages.snapshot(SID) if m.content)
    assert first.type is MessageType.USER and "How many boats" in first.content


def test_hidden_memory_and_reasoning_are_kept_but_never_sent() -> None:
    path = _stored().messages.snapshot(SID)
    thinking = "\n".join(m.thinking_content or "" for m in path)
    assert "Owns a 7 m sloop called Möwe." in thinking and "run a quick script" in thinking
    assert "Thought for 8 seconds" in thinking
    assert not any("Möwe" in m.content or "quick script" in m.content or "content_type" in m.content for m in path)
    sent = " ".join(b.text for t in to_turns(normalize(path)) for b in t.blocks if isinstance(b, TextBlock))
    assert "Möwe" not in sent and "quick script" not in sent and "Thought for" not in sent
    recap = next(m for m in path if "Thought for 8 seconds" in (m.thinking_content or ""))
    assert recap.thinking_ms == 8000
    thoughts = next(m for m in path if "quick script" in (m.thinking_content or ""))
    assert thoughts.reasoning and thoughts.reasoning[0].provider_id == "chatgpt-export"


def test_code_interpreter_code_shows_as_a_code_block_and_its_output_as_the_result() -> None:
    path = _stored().messages.snapshot(SID)
    call = next(m for m in path if m.type is MessageType.TOOL_CALL)
    result = next(m for m in path if m.type is MessageType.TOOL_RESULT)
    assert call.tool_name == "python" and json.loads(call.tool_input or "")["language"] == "python"
    assert format_arguments(call.tool_input) == (
        '```python\nboats = ["sloop", "ketch", "dinghy"] * 2 + ["ferry"]\nprint(len(boats))\n```')
    assert result.tool_output == "7" and result.tool_call_id == call.tool_call_id


def test_two_questions_in_a_row_are_sent_as_one_user_turn_without_invented_text() -> None:
    path = _stored().messages.snapshot(SID)
    built = normalize(path)
    assert not [m for m in built if is_synthetic(m)]
    turns = to_turns(built)
    texts = [" ".join(b.text for b in t.blocks if isinstance(b, TextBlock)) for t in turns]
    assert [t.role for t in turns][-2:] == ["user", "assistant"]
    assert texts[-2] == "Thanks! And the gulls? Sorry, I meant: how many gulls?"
    assert not any("no reply was recorded" in t for t in texts)


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (30, 90, 160)).save(out, format="PNG")
    return out.getvalue()


def test_files_in_the_zip_become_attachments_and_missing_ones_stay_placeholders(tmp_path: Path) -> None:
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("conversations.json", FIXTURE.read_text(encoding="utf-8"))
        z.writestr("file-Harbour01-harbour.png", _png())
    files = AttachmentFiles(tmp_path / "attachments")
    conversations = attach_archive_files(read_chatgpt(FIXTURE.read_text(encoding="utf-8")), archive,
                                         AttachmentIntake(files))
    question = next(m for m in conversations[0].messages if m.type is MessageType.USER)
    assert [(a.name, a.kind, a.width) for a in question.attachments] == [("harbour.png", AttachmentKind.IMAGE, 64)]
    assert files.exists(question.attachments[0].sha256)
    assert "file-Harbour01" not in question.content
    assert "crew-notes.pdf" in question.content and "not in the export" in question.content
    assert "How many boats are in this harbour photo?" in question.content


def test_librechats_modern_export_sample_skips_the_entry_without_a_mapping_and_keeps_the_instructions() -> None:
    text = (FIXTURE.parent / "chatgpt-modern-export.json").read_text(encoding="utf-8")
    store = fake_store()
    result = _import(store, read_chatgpt(text))
    first = "chatgpt-6b0f0d9c-0000-4000-8000-000000000001"
    assert result.imported == (first, "chatgpt-6b0f0d9c-0000-4000-8000-000000000003")
    session = store.sessions.get(first)
    assert session is not None and session.system_prompt == "The user is an SRE.\n\nAnswer concisely."
    assert [m.content for m in store.messages.snapshot(first)] == [
        "How do I roll back the deploy?", "Run `helm rollback staging`.", "And if that fails?",
        "Restore from the last known-good chart."]
