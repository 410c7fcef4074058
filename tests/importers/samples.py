"""Exports shaped like the real ones (ChatGPT's conversations.json with its `mapping` tree; Claude's with
`chat_messages`), with branches, code, images, attachments and tool messages."""

from __future__ import annotations

from typing import Any

T = 1_714_000_000.0


def _node(nid: str, parent: str | None, children: list[str], message: dict[str, Any] | None) -> dict[str, Any]:
    return {"id": nid, "message": message, "parent": parent, "children": children}


def _msg(nid: str, role: str, content: dict[str, Any], at: float | None, **extra: Any) -> dict[str, Any]:
    author = {"role": role, "name": extra.pop("name", None), "metadata": {}}
    return {"id": nid, "author": author, "create_time": at, "update_time": None, "content": content,
            "status": "finished_successfully", "end_turn": True, "weight": 1.0,
            "metadata": extra.pop("metadata", {}), "recipient": extra.pop("recipient", "all"), **extra}


def _text(*parts: Any) -> dict[str, Any]:
    return {"content_type": "text", "parts": list(parts)}


def chatgpt_export() -> list[dict[str, Any]]:
    """Two conversations: one with an edited question (two branches, the second open), a code-interpreter call and
    its output, an uploaded image and a file attachment; one plain, with an unknown content type."""
    mapping = {
        "client-created-root": _node("client-created-root", None, ["sys"], None),
        "sys": _node("sys", "client-created-root", ["q1"], _msg(
            "sys", "system", _text(""), None, metadata={"is_visually_hidden_from_conversation": True})),
        "q1": _node("q1", "sys", ["a1"], _msg("q1", "user", {
            "content_type": "multimodal_text", "parts": [
                {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-IMG123", "width": 800,
                 "height": 600, "size_bytes": 51234}, "What is in this photo of the harbour?"]}, T,
            metadata={"attachments": [{"id": "file-IMG123", "name": "harbour.jpg", "mimeType": "image/jpeg"}]})),
        "a1": _node("a1", "q1", ["q2", "q2b"], _msg("a1", "assistant", _text("Fishing boats at dawn."), T + 5,
                                                   metadata={"model_slug": "gpt-4o"})),
        "q2": _node("q2", "a1", ["a2"], _msg("q2", "user", _text("Count the boats with code"), T + 10)),
        "a2": _node("a2", "q2", [], _msg("a2", "assistant", _text("About seven boats."), T + 12,
                                         metadata={"model_slug": "gpt-4o"})),
        "q2b": _node("q2b", "a1", ["call"], _msg("q2b", "user", _text("Count the boats with Python, please"),
                                                 T + 20)),
        "call": _node("call", "q2b", ["out"], _msg("call", "assistant", {
            "content_type": "code", "language": "python", "text": "print(len(boats))"}, T + 21,
            recipient="python", metadata={"model_slug": "gpt-4o"})),
        "out": _node("out", "call", ["a2b"], _msg("out", "tool", {
            "content_type": "execution_output", "text": "7"}, T + 22, name="python")),
        "a2b": _node("a2b", "out", [], _msg("a2b", "assistant", _text("There are 7 boats."), T + 23,
                                            metadata={"model_slug": "gpt-4o"})),
    }
    first = {"title": "Harbour photo", "create_time": T, "update_time": T + 23, "mapping": mapping,
             "current_node": "a2b", "conversation_id": "conv-harbour", "id": "conv-harbour",
             "default_model_slug": "gpt-4o"}
    plain = {
        "root": _node("root", None, ["u"], None),
        "u": _node("u", "root", ["r"], _msg("u", "user", _text("Say hi"), T + 100)),
        "r": _node("r", "u", [], _msg("r", "assistant", {"content_type": "hologram", "beam": "hi"}, T + 101)),
    }
    second = {"title": "Greeting", "create_time": T + 100, "update_time": T + 101, "mapping": plain,
              "current_node": "r", "conversation_id": "conv-hi", "id": "conv-hi"}
    return [first, second]


def claude_export() -> list[dict[str, Any]]:
    """Two conversations: one with a regenerated answer (two branches), an attachment with its extracted text, a
    file, a tool use with its result and thinking; one with an unknown block type."""
    zero = "00000000-0000-4000-8000-000000000000"
    chat = [
        {"uuid": "h1", "text": "Summarize the report", "sender": "human", "created_at": "2025-03-01T10:00:00Z",
         "content": [{"type": "text", "text": "Summarize the report"}], "parent_message_uuid": zero,
         "attachments": [{"file_name": "report.txt", "file_size": 40, "file_type": "txt",
                          "extracted_content": "Quarterly revenue grew 12 percent."}],
         "files": [{"file_name": "chart.png"}]},
        {"uuid": "b1", "text": "", "sender": "assistant", "created_at": "2025-03-01T10:00:05Z",
         "parent_message_uuid": "h1",
         "content": [{"type": "thinking", "thinking": "The user wants a summary."},
                     {"type": "text", "text": "Let me check the latest figures."},
                     {"type": "tool_use", "id": "toolu_01", "name": "web_search", "input": {"query": "revenue"}},
                     {"type": "tool_result", "tool_use_id": "toolu_01", "name": "web_search",
                      "content": [{"type": "text", "text": "Revenue up 12% (source: example.com)"}],
                      "is_error": False},
                     {"type": "text", "text": "Revenue grew 12 percent."}]},
        {"uuid": "b1b", "text": "Revenue rose by twelve percent.", "sender": "assistant",
         "created_at": "2025-03-01T10:01:00Z", "parent_message_uuid": "h1",
         "content": [{"type": "text", "text": "Revenue rose by twelve percent."}]},
        {"uuid": "h2", "text": "Thanks", "sender": "human", "created_at": "2025-03-01T10:02:00Z",
         "parent_message_uuid": "b1b", "content": [{"type": "text", "text": "Thanks"}]},
    ]
    first = {"uuid": "conv-report", "name": "Report summary", "created_at": "2025-03-01T10:00:00Z",
             "updated_at": "2025-03-01T10:02:00Z", "account": {"uuid": "acct"}, "chat_messages": chat,
             "current_leaf_message_uuid": "h2"}
    second = {"uuid": "conv-odd", "name": "", "created_at": "2025-03-02T09:00:00Z",
              "updated_at": "2025-03-02T09:00:01Z", "chat_messages": [
                  {"uuid": "x1", "text": "hello", "sender": "human", "created_at": "2025-03-02T09:00:00Z",
                   "content": [{"type": "text", "text": "hello"}]},
                  {"uuid": "x2", "text": "", "sender": "assistant", "created_at": "2025-03-02T09:00:01Z",
                   "content": [{"type": "voice_note", "duration": 3}]}]}
    return [first, second]
