"""MCP resources attached to a conversation stay subscribed: before the conversation's next send, one whose server
said it changed (notifications/resources/updated) is read again and its new contents attached, with a notice."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from app.cli.mcp_catalog_cmd import resource_attachments
from domain.attachment import Attachment
from domain.errors import PalimpsestError
from domain.mcp import McpServerError
from domain.usecases.mcp_servers import require_server

if TYPE_CHECKING:
    from app.container import Container

log = logging.getLogger(__name__)


class WatchedResources:
    """The subscribed resources (server, URI) attached to each conversation; safe from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_session: dict[str, list[tuple[str, str]]] = {}
        self._unsent: dict[str, tuple[str, str]] = {}  # a new chat's draft: the resource of each attachment's sha256

    def read_for_new_chat(self, sha256s: Sequence[str], server: str, uri: str) -> None:
        """The resource was read into the draft of a new chat (no conversation to watch it in yet)."""
        with self._lock:
            self._unsent.update(dict.fromkeys(sha256s, (server, uri)))

    def take_unsent(self, sha256s: Sequence[str]) -> list[tuple[str, str]]:
        """The resources a new chat's first message carries (read for its draft), each once."""
        with self._lock:
            found = [self._unsent.pop(sha) for sha in sha256s if sha in self._unsent]
        return list(dict.fromkeys(found))

    def add(self, session_id: str, server: str, uri: str) -> None:
        """The resource was attached in the conversation (and subscribed to)."""
        with self._lock:
            watched = self._by_session.setdefault(session_id, [])
            if (server, uri) not in watched:
                watched.append((server, uri))

    def of(self, session_id: str) -> list[tuple[str, str]]:
        """The conversation's watched resources, in the order attached."""
        with self._lock:
            return list(self._by_session.get(session_id, ()))


async def watch_resource(c: Container, session_id: str, server_name: str, uri: str) -> bool:
    """Subscribes to an attached resource for the conversation; False when its server offers no subscriptions or
    refuses (the attachment stands as read)."""
    server = require_server(c.mcp_servers, server_name)
    try:
        subscribed = await c.mcp.catalog().subscribe_resource(server, uri)
    except McpServerError as err:
        log.info("Not subscribed to %s of %s: %s", uri, server.name, err)
        return False
    if subscribed:
        c.mcp_watch.add(session_id, server.name, uri)
    return subscribed


async def changed_resources(c: Container, session_id: str) -> tuple[list[Attachment], list[str]]:
    """The new contents of the conversation's attached resources that changed since they were last read, and a
    notice for each ("URI changed; its new contents are attached.")."""
    catalog = c.mcp.catalog() if c.mcp_watch.of(session_id) else None
    taken: list[Attachment] = []
    notices: list[str] = []
    for server, uri in c.mcp_watch.of(session_id):
        if catalog is None or not catalog.resource_changed(server, uri):
            continue
        try:
            taken += await resource_attachments(c, [[server, uri]])
        except PalimpsestError as err:  # gone or unreadable now: the next send goes without it
            log.warning("Could not read %s of %s again: %s", uri, server, err)
            notices.append(f"{uri} changed, but could not be read again: {err}")
            continue
        notices.append(f"{uri} changed; its new contents are attached.")
    return taken, notices


def with_notices(text: str, notices: list[str]) -> str:
    """The message's text followed by the notices, each in brackets on its own line."""
    if not notices:
        return text
    return "\n\n".join([t for t in (text,) if t.strip()] + [f"[{n}]" for n in notices])
