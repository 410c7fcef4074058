"""MCP resources attached in a conversation, each remembered with a hash of the contents sent, so that a later
process (the next `palimpsest chat` of the conversation) can read it again and send it again only when it changed;
and the port of their store."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from domain.mcp_catalog import McpResourceContent


@dataclass(frozen=True)
class AttachedResource:
    """A resource (server name, URI) attached in a conversation, and the hash of the contents last sent."""

    server: str
    uri: str
    content_hash: str


def content_hash(contents: Sequence[McpResourceContent]) -> str:
    """A sha256 over every part of a read resource (URI, type, text or bytes), in order."""
    digest = hashlib.sha256()
    for part in contents:
        body = part.data if part.data is not None else (part.text or "").encode("utf-8")
        for field in (part.uri.encode("utf-8"), (part.mime_type or "").encode("utf-8"),
                      b"b" if part.data is not None else b"t", body):
            digest.update(len(field).to_bytes(8, "big"))
            digest.update(field)
    return digest.hexdigest()


class AttachedResourceStore(Protocol):
    """The resources attached in each conversation (removed with the conversation)."""

    def of(self, session_id: str) -> Sequence[AttachedResource]:
        """The conversation's attached resources, in the order first attached."""
        ...

    def remember(self, session_id: str, resources: Sequence[AttachedResource]) -> None:
        """Adds the resources to the conversation, or updates the hash of those it has."""
        ...
