"""The ChatGPT, Claude and Palimpsest readers and the import use case, on the in-memory fakes."""

from __future__ import annotations

import json

import pytest

from domain.chat.tree import Tree
from domain.importers.chatgpt import read_chatgpt
from domain.importers.claude import read_claude
from domain.importers.model import MalformedExport
from domain.models import MessageType
from domain.usecases.import_conversations import ImportConversationsUseCase
from tests.contracts.conftest import Store, fake_store
from tests.importers.samples import chatgpt_export, claude_export


def _import(store: Store, conversations: list, progress: list | None = None):  # type: ignore[no-untyped-def, type-arg]
    use = ImportConversationsUseCase(store.unit_of_work, store.sessions, store.messages, store.agents)
    return use(conversations, (lambda d, t: progress.append((d, t))) if progress is not None else None)


def test_chatgpt_branches_code_images_attachments_and_tool_messages_are_all_kept() -> None:
    store = fake_store()
    seen: list[tuple[int, int]] = []
    result = _import(store, read_chatgpt(json.dumps(chatgpt_export())), seen)
    assert result.imported == ("chatgpt-conv-harbour", "chatgpt-conv-hi") and result.messages == 10
    assert seen == [(1, 2), (2, 2)]
    session = store.sessions.get("chatgpt-conv-harbour")
    assert session is not None and session.title == "Harbour photo" and session.message_count == 8
    path = store.messages.snapshot("chatgpt-conv-harbour")
    assert [m.type for m in path] == [MessageType.USER, MessageType.AI_RESPONSE, MessageType.USER,
                                      MessageType.TOOL_CALL, MessageType.TOOL_RESULT, MessageType.AI_RESPONSE]
    question = path[0].content
    assert "[image: file-service://file-IMG123]" in question and "photo of the harbour" in question
    assert "harbour.jpg (file id file-IMG123, image/jpeg" in question
    call, output = path[3], path[4]
    assert (call.tool_name, json.loads(call.tool_input or "")) == (
        "python", {"code": "print(len(boats))", "language": "python"})
    assert output.tool_output == "7" and output.tool_call_id == call.tool_call_id and output.parent_id == call.id
    assert path[-1].content == "There are 7 boats." and path[-1].model_id == "gpt-4o"
    branches = Tree(store.messages.tree("chatgpt-conv-harbour")).branches()
    assert [(b.length, b.active) for b in branches] == [(4, False), (6, True)]
    for word in ("harbour", "seven", "Python", "boats"):
        assert [h.session_id for h in store.sessions.search(word)] == ["chatgpt-conv-harbour"]
    odd = store.messages.snapshot("chatgpt-conv-hi")[-1].content
    assert odd.startswith("[ChatGPT content of type 'hologram', kept as text]") and '"beam": "hi"' in odd


def test_claude_branches_tool_use_thinking_and_attachments_are_all_kept() -> None:
    store = fake_store()
    result = _import(store, read_claude(json.dumps(claude_export())))
    assert result.imported == ("claude-conv-report", "claude-conv-odd")
    tree = store.messages.tree("claude-conv-report")
    assert len(tree) == 7  # h1, b1 as reply/call/result/reply, b1b, h2
    path = store.messages.snapshot("claude-conv-report")
    assert [m.content for m in path][1:] == ["Revenue rose by twelve percent.", "Thanks"]
    assert "Quarterly revenue grew 12 percent." in path[0].content and "[file: chart.png" in path[0].content
    store.messages.set_path("claude-conv-report", Tree(tree).branches()[0].leaf_id)
    other = store.messages.snapshot("claude-conv-report")
    assert [m.type.value for m in other] == ["user", "ai_response", "tool_call", "tool_result", "ai_response"]
    assert other[1].thinking_content == "The user wants a summary."
    assert (other[2].tool_call_id, other[3].tool_call_id, other[3].tool_output) == (
        "toolu_01", "toolu_01", "Revenue up 12% (source: example.com)")
    assert json.loads(other[2].tool_input or "") == {"query": "revenue"}
    assert store.sessions.get("claude-conv-odd").title == "Claude chat"  # type: ignore[union-attr]
    assert "kept as text" in store.messages.snapshot("claude-conv-odd")[-1].content


def test_importing_the_same_export_twice_does_not_duplicate() -> None:
    store = fake_store()
    _import(store, read_chatgpt(json.dumps(chatgpt_export())))
    again = _import(store, read_chatgpt(json.dumps(chatgpt_export())))
    assert again.imported == () and len(again.skipped) == 2 and again.messages == 0
    assert len(store.sessions.list()) == 2 and store.messages.count("chatgpt-conv-harbour") == 8


def test_invalid_json_is_refused_with_its_line_and_column() -> None:
    with pytest.raises(MalformedExport) as caught:
        read_chatgpt('[\n  {"title": "x",\n   "mapping": {,}}]')
    assert "line 3, column 16" in str(caught.value) and "Nothing was imported" in str(caught.value)


def test_a_malformed_conversation_is_refused_with_where_it_is_and_nothing_is_stored() -> None:
    export = chatgpt_export()
    export[1]["mapping"]["u"]["message"]["author"] = {"name": "x"}
    with pytest.raises(MalformedExport) as caught:
        read_chatgpt(json.dumps(export))
    assert caught.value.where == "conversations[1].mapping['u'].message.author.role"
    bad_parent = chatgpt_export()
    bad_parent[0]["mapping"]["a1"]["parent"] = "missing"
    with pytest.raises(MalformedExport, match=r"conversations\[0\]\.mapping\['a1'\]\.parent"):
        read_chatgpt(json.dumps(bad_parent))
    claude = claude_export()
    claude[0]["chat_messages"][2]["sender"] = "robot"
    with pytest.raises(MalformedExport, match=r"conversations\[0\]\.chat_messages\[2\]\.sender"):
        read_claude(json.dumps(claude))
    with pytest.raises(MalformedExport, match="the top level"):
        read_claude('{"not": "a list"}')


def test_a_failure_while_storing_stores_nothing() -> None:
    store = fake_store()
    conversations = read_chatgpt(json.dumps(chatgpt_export()))
    broken = conversations[1].__class__(**{**conversations[1].__dict__, "leaf_id": "no-such-message"})
    with pytest.raises(Exception, match="no-such-message"):
        _import(store, [conversations[0], broken])
    assert store.sessions.list() == [] and store.messages.snapshot("chatgpt-conv-harbour") == []


def _palimpsest_export(prompt: object) -> str:
    return json.dumps({"id": "p1", "title": "T", "created_at": "2026-01-01T00:00:00+00:00", "system_prompt": prompt,
                       "messages": [{"id": "m1", "type": "user", "content": "hi", "seq": 1}]})


def test_palimpsest_reader_keeps_a_sessions_own_prompt_and_refuses_an_overlong_one() -> None:
    from domain.importers.palimpsest import read_palimpsest
    from domain.usecases.set_session_prompt import MAX_SYSTEM_PROMPT_CHARS

    assert read_palimpsest(_palimpsest_export(" Be brief. "))[0].system_prompt == "Be brief."
    assert read_palimpsest(_palimpsest_export("  "))[0].system_prompt is None
    assert read_palimpsest(_palimpsest_export(None))[0].system_prompt is None
    with pytest.raises(MalformedExport, match=r"longer than 100,000 characters at the session\.system_prompt"):
        read_palimpsest(_palimpsest_export("x" * (MAX_SYSTEM_PROMPT_CHARS + 1)))
