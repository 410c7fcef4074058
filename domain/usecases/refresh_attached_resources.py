"""The MCP resources attached in a conversation, across processes: each one attached is remembered with a hash of
what was sent; before the conversation's next message (a later `palimpsest chat`), each is read again: a changed one
is attached again with a notice, an unchanged one costs one resources/read and nothing more, and one that cannot be
read (its server gone, or the read refused) is said, the copy sent earlier standing."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from domain.attached_resources import AttachedResource, AttachedResourceStore, content_hash
from domain.attachment import Attachment
from domain.errors import InvalidInput, PalimpsestError
from domain.mcp import McpServerRepository
from domain.mcp_catalog import McpCatalog, McpResourceContent
from domain.usecases.mcp_servers import require_server

# Takes a read resource's parts in as attachments: (server name, URI, parts); InvalidInput when one is refused.
TakeContents = Callable[[str, str, Sequence[McpResourceContent]], list[Attachment]]


@dataclass(frozen=True)
class ReadResource:
    """A resource read now: its attachments, and what to remember once the message carrying them is stored."""

    attachments: tuple[Attachment, ...]
    record: AttachedResource


@dataclass(frozen=True)
class Refreshed:
    """What re-reading a conversation's resources found: the new versions' attachments, a notice for each resource
    that changed (`changed`, for the message's text) or could not be read (`notices` holds both), and the hashes to
    remember once the message is stored."""

    attachments: tuple[Attachment, ...] = ()
    notices: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    updated: tuple[AttachedResource, ...] = ()


class AttachedResources:
    """Reads resources to attach, and re-reads a conversation's attached resources before its next message."""

    def __init__(self, store: AttachedResourceStore, servers: McpServerRepository,
                 catalog: Callable[[], McpCatalog], take: TakeContents) -> None:
        self._store = store
        self._servers = servers
        self._catalog = catalog  # called only when a resource is to be read (it starts the servers' hub)
        self._take = take

    async def read(self, server_name: str, uri: str) -> ReadResource:
        """Reads one resource and takes it in; InvalidInput for an unknown server or an empty resource,
        McpServerError when the server cannot read it."""
        server = require_server(self._servers, server_name)
        contents = await self._catalog().read_resource(server, uri)
        if not contents:
            raise InvalidInput(f"The resource {uri} of {server.name!r} is empty.")
        return ReadResource(tuple(self._take(server.name, uri, contents)),
                            AttachedResource(server.name, uri, content_hash(contents)))

    async def refresh(self, session_id: str, skip: Collection[tuple[str, str]] = ()) -> Refreshed:
        """Reads the conversation's attached resources again (but those in `skip`, (server, URI) pairs attached
        anew with this message): the changed ones' new contents, and the notices."""
        taken: list[Attachment] = []
        notices: list[str] = []
        changed: list[str] = []
        updated: list[AttachedResource] = []
        for record in self._store.of(session_id):
            if (record.server, record.uri) in skip:
                continue
            try:
                digest, attachments = await self._read_if_changed(record)
            except PalimpsestError as err:  # the copy sent earlier stands; the message goes without a new one
                reason = str(err).strip().rstrip(".")
                notices.append(f"{record.uri} of {record.server} could not be read again ({reason}); the copy "
                               f"attached earlier stands.")
                continue
            if digest is None:
                continue
            taken += attachments
            notice = f"{record.uri} changed; its new contents are attached."
            notices.append(notice)
            changed.append(notice)
            updated.append(AttachedResource(record.server, record.uri, digest))
        return Refreshed(tuple(taken), tuple(notices), tuple(changed), tuple(updated))

    def remember(self, session_id: str, records: Sequence[AttachedResource]) -> None:
        """The resources were sent in the conversation with these contents."""
        if records:
            self._store.remember(session_id, records)

    async def _read_if_changed(self, record: AttachedResource) -> tuple[str | None, list[Attachment]]:
        """The new hash and attachments of a resource that changed; (None, []) when it did not."""
        server = self._servers.get(record.server)
        if server is None:
            raise InvalidInput(f"the MCP server {record.server} is no longer set up")
        contents = await self._catalog().read_resource(server, record.uri)
        if not contents:
            raise InvalidInput("it came back empty")
        digest = content_hash(contents)
        if digest == record.content_hash:
            return None, []
        return digest, self._take(server.name, record.uri, contents)
