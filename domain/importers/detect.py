"""Which client wrote an export, told from its decoded JSON (its shape, not its file name)."""

from __future__ import annotations

from typing import Any

NAMES = {
    "chatgpt": "a ChatGPT export", "claude": "a Claude export", "palimpsest": "a Palimpsest export",
    "openwebui": "an Open WebUI export", "librechat": "a LibreChat export", "chatbox": "a Chatbox backup",
    "lmstudio": "LM Studio conversations", "jan": "Jan threads", "llm": "an llm logs database",
}
_SNIFF = (  # (kind, keys that all appear early in a file of that kind: in its first conversation's first messages)
    ("chatgpt", ('"mapping"', '"children"')), ("claude", ('"chat_messages"',)),
    ("openwebui", ('"childrenIds"', '"parentId"')), ("librechat", ('"messagesTree"',)),
    ("librechat", ('"conversationId"', '"parentMessageId"')), ("chatbox", ('"session:',)),
    ("chatbox", ('"chat-sessions',)), ("lmstudio", ('"currentlySelected"',)), ("palimpsest", ('"seq"', '"type"')),
)


def kind_of(value: Any) -> str | None:
    """The kind of a decoded export, or None when no reader knows its shape."""
    if isinstance(value, list):
        first = next((v for v in value if isinstance(v, dict)), None)
        return _item_kind(first) if first is not None else None
    if not isinstance(value, dict):
        return None
    if any(isinstance(k, str) and k.startswith("session:") for k in value) or "chat-sessions" in value or (
            "chat-sessions-list" in value):
        return "chatbox"
    if "messagesTree" in value or "conversationId" in value:
        return "librechat"
    messages = value.get("messages")
    if isinstance(messages, list) and any(isinstance(m, dict) and "versions" in m for m in messages):
        return "lmstudio"
    return _item_kind(value)


def _item_kind(item: dict[str, Any]) -> str | None:
    if "mapping" in item:
        return "chatgpt"
    if "chat_messages" in item:
        return "claude"
    if isinstance(item.get("chat"), dict) or isinstance(item.get("history"), dict):
        return "openwebui"
    if "conversationId" in item or "messagesTree" in item:
        return "librechat"
    messages = item.get("messages")
    if isinstance(messages, list) and any(isinstance(m, dict) and "seq" in m and "type" in m for m in messages):
        return "palimpsest"
    if isinstance(messages, list) and "createdAt" in item and any(isinstance(m, dict) and "versions" in m
                                                                for m in messages):
        return "lmstudio"
    return None


def sniff(head: str) -> str | None:
    """The kind of a large export told from its first part (read as text), or None."""
    for kind, keys in _SNIFF:
        if all(k in head for k in keys):
            return kind
    return None
