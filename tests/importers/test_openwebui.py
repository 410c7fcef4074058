"""Open WebUI's chat export: LibreChat's published sample (0.6 `output` items) and an earlier chat whose reasoning
and tool calls are only `<details>` markup, with a regenerated reply and an embedded image."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

from PIL import Image

from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
from data.importing.archive_files import attach_archive_files
from domain.chat.tree import Tree
from domain.importers.openwebui import read_openwebui
from domain.models import MessageType
from tests.contracts.conftest import fake_store
from tests.importers.test_readers import _import

FIXTURE = Path(__file__).parent / "fixtures" / "openwebui" / "openwebui-export.json"


def test_the_published_export_keeps_reasoning_as_thinking_and_tool_calls_as_rounds() -> None:
    store = fake_store()
    result = _import(store, read_openwebui(FIXTURE.read_text(encoding="utf-8")))
    assert result.imported == ("openwebui-reasoning-chat", "openwebui-tool-chat", "openwebui-simple-chat")
    reasoning = store.messages.snapshot("openwebui-reasoning-chat")
    assert [(m.type, m.content) for m in reasoning] == [(MessageType.USER, "What is 15 * 17?"),
                                                        (MessageType.AI_RESPONSE, "255")]
    assert reasoning[1].thinking_content == "15 * 17 = 15 * 10 + 15 * 7 = 150 + 105 = 255"
    assert reasoning[1].model_id == "deepseek-r1"
    tool = store.messages.snapshot("openwebui-tool-chat")
    assert [m.type for m in tool] == [MessageType.USER, MessageType.TOOL_CALL, MessageType.TOOL_RESULT,
                                      MessageType.AI_RESPONSE]
    assert (tool[1].tool_name, json.loads(tool[1].tool_input or ""), tool[2].tool_output, tool[2].tool_call_id) == (
        "get_weather", {"city": "Paris"}, "Paris: 18C, rain", "call_1")
    assert tool[3].content == "The weather in Paris is 18C with rain."
    assert "details" not in " ".join(m.content for m in [*reasoning, *tool])


def _png_url() -> str:
    out = io.BytesIO()
    Image.new("RGB", (20, 10), (200, 40, 40)).save(out, format="PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def _earlier_chat() -> list[dict]:  # type: ignore[type-arg]
    reasoning = ('<details type="reasoning" done="true" duration="2">\n<summary>Thought for 2 seconds</summary>\n'
                 '&gt; The flag is red.\n</details>\n')
    tool = ('<details type="tool_calls" done="true" id="call_9" name="lookup" arguments="&quot;{\\&quot;q\\&quot;: '
            '\\&quot;flag\\&quot;}&quot;" result="&quot;red, white&quot;">\n<summary>Tool Executed</summary>\n'
            '</details>\n')
    messages = {
        "u1": {"id": "u1", "parentId": None, "childrenIds": ["a1", "a2"], "role": "user", "timestamp": 1710000000,
               "content": "What colour is this flag?", "files": [{"type": "image", "url": _png_url()}]},
        "a1": {"id": "a1", "parentId": "u1", "childrenIds": [], "role": "assistant", "timestamp": 1710000005,
               "model": "llava:13b", "content": "It is blue."},
        "a2": {"id": "a2", "parentId": "u1", "childrenIds": [], "role": "assistant", "timestamp": 1710000009,
               "model": "llava:13b", "content": reasoning + tool + "It is red and white."},
    }
    chat = {"id": "", "title": "Flag", "models": ["llava:13b"], "params": {"system": "Answer in one line."},
            "history": {"messages": messages, "currentId": "a2"}, "messages": list(messages.values()),
            "timestamp": 1710000000000}
    return [{"id": "chat-flag", "user_id": "u", "title": "Flag", "chat": chat, "created_at": 1710000000,
             "updated_at": 1710000009}]


def test_an_earlier_chat_keeps_its_branches_markup_prompt_and_embedded_image(tmp_path: Path) -> None:
    conversations = read_openwebui(json.dumps(_earlier_chat()))
    conversations = attach_archive_files(conversations, None, AttachmentIntake(AttachmentFiles(tmp_path / "f")))
    store = fake_store()
    _import(store, conversations)
    sid = "openwebui-chat-flag"
    path = store.messages.snapshot(sid)
    assert [m.type for m in path] == [MessageType.USER, MessageType.TOOL_CALL, MessageType.TOOL_RESULT,
                                      MessageType.AI_RESPONSE]
    question, call, result, answer = path
    assert question.content == "What colour is this flag?"
    assert [(a.width, a.height) for a in question.attachments] == [(20, 10)]
    assert (call.tool_name, json.loads(call.tool_input or ""), result.tool_output) == ("lookup", {"q": "flag"},
                                                                                      "red, white")
    assert answer.content == "It is red and white." and answer.thinking_content == "The flag is red."
    session = store.sessions.get(sid)
    assert session is not None and session.system_prompt == "Answer in one line."
    branches = Tree(store.messages.tree(sid)).branches()
    assert sorted((b.length, b.active) for b in branches) == [(2, False), (4, True)]
