"""The text of ChatGPT's content objects and parts: text, code, multimodal text with image pointers, tool output,
thoughts, custom instructions; anything else kept as text with a note."""

from __future__ import annotations

import json
from typing import Any

from domain.importers.model import MalformedExport, expect

HIDDEN_KINDS = frozenset({"user_editable_context", "model_editable_context"})


def content_text(content: dict[str, Any], at: str) -> str:
    """The text of one ChatGPT content object; kinds this reader does not know are kept as text with a note."""
    kind = content.get("content_type")
    if kind in ("text", "multimodal_text"):
        parts = expect(content.get("parts", []), list, f"{at}.parts", "a list of parts")
        return "\n".join(_part(p, f"{at}.parts[{i}]") for i, p in enumerate(parts))
    if kind == "code":
        code = expect(content.get("text", ""), str, f"{at}.text", "the code as a string")
        return f"```{content.get('language') or ''}\n{code}\n```".replace("```unknown", "```")
    if kind in ("execution_output", "system_error", "reasoning_recap") and isinstance(
            content.get("text", content.get("content")), str):
        return str(content.get("text", content.get("content")))
    if kind == "thoughts":
        return thoughts_text(content, at)
    if kind == "user_editable_context":
        return instructions(content)
    if kind == "model_editable_context":
        return str(content.get("model_set_context") or "")
    if kind == "tether_quote":
        return "\n".join(str(content.get(k)) for k in ("title", "url", "text") if content.get(k))
    if kind == "tether_browsing_display":
        return "\n".join(str(content.get(k)) for k in ("summary", "result") if content.get(k))
    return f"[ChatGPT content of type {kind!r}, kept as text]\n" + json.dumps(content, ensure_ascii=False)


def thoughts_text(content: dict[str, Any], at: str) -> str:
    """A `thoughts` node's reasoning: each thought's summary as a heading line over its text."""
    out = []
    for i, thought in enumerate(expect(content.get("thoughts") or [], list, f"{at}.thoughts", "a list of thoughts")):
        expect(thought, dict, f"{at}.thoughts[{i}]", "a thought object")
        lines = [str(thought[k]) for k in ("summary", "content") if isinstance(thought.get(k), str) and thought[k]]
        if lines:
            out.append("\n".join(lines))
    return "\n\n".join(out)


def instructions(content: dict[str, Any]) -> str:
    """Custom instructions (`user_editable_context`): what the user said about themselves and how to answer."""
    return "\n\n".join(str(content[k]).strip() for k in ("user_profile", "user_instructions")
                       if isinstance(content.get(k), str) and content[k].strip())


def code_input(content: dict[str, Any]) -> str | None:
    """A code-interpreter call's input as stored (`{"code", "language"}`), or None for content that is not code."""
    if content.get("content_type") != "code" or not isinstance(content.get("text"), str):
        return None
    language = content.get("language") if isinstance(content.get("language"), str) else ""
    return json.dumps({"code": content["text"], "language": "" if language == "unknown" else language},
                      ensure_ascii=False)


def _part(part: Any, at: str) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        kind = part.get("content_type")
        if kind == "image_asset_pointer":
            return image_line(str(part.get("asset_pointer") or "not included in the export"))
        if kind == "audio_transcription" and isinstance(part.get("text"), str):
            return str(part["text"])
        return f"[ChatGPT part of type {kind!r}, kept as text] " + json.dumps(part, ensure_ascii=False)
    raise MalformedExport(at, "expected a text part or an object")


def image_line(pointer: str) -> str:
    """The placeholder line of an image part (an uploaded or generated image)."""
    return f"[image: {pointer}]"


def file_id(pointer: str) -> str:
    """The file id of an asset pointer (`file-service://file-XXXX`, `sediment://file_XXXX`)."""
    return pointer.rsplit("/", 1)[-1]


def attachment_line(attachment: dict[str, Any]) -> str:
    """The placeholder line of an attachment of a message."""
    name = attachment.get("name") or attachment.get("id") or "file"
    mime = attachment.get("mime_type") or attachment.get("mimeType")
    kind = f", {mime}" if mime else ""
    return f"[attachment: {name} (file id {attachment.get('id', '?')}{kind}; the file itself is not in the export)]"
