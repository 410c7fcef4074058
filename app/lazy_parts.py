"""The parts of the composition root made on first use: the document cards of large attachments and the MCP hub
(a turn or command that never needs them never imports their code)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from domain.attachment import Attachment
from domain.mcp import McpSecretStore, McpServer, McpToolSpec
from domain.mcp_catalog import McpCatalog
from domain.mcp_interaction import McpSampler, McpUser
from domain.provider_ports import ProgressReport, ToolOutcome

if TYPE_CHECKING:
    from data.documents.cards import AttachmentDocuments
    from data.mcp.hub import McpHub
    from data.storage import Storage


class LazyDocumentCards:
    """The cards of documents too large to send whole (data.documents.cards), imported on the first one a request
    carries: a turn with no such document never loads the extractors."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._cards: AttachmentDocuments | None = None

    def card(self, attachment: Attachment) -> str:
        """See AttachmentDocuments.card."""
        return self._get().card(attachment)

    def ensure(self, attachment: Attachment) -> bool:
        """Indexes the attachment now (at attach time, off the GUI thread) unless it is already; False when it has
        no text to index. See AttachmentDocuments.ensure."""
        return self._get().ensure(attachment) is not None

    def _get(self) -> AttachmentDocuments:
        if self._cards is None:
            from data.documents.cards import AttachmentDocuments

            self._cards = AttachmentDocuments(self._storage.documents, self._storage.attachment_files)
        return self._cards


class LazyMcpConnector:
    """The MCP hub, imported and started on first use (a command that never calls an MCP tool never loads the SDK)."""

    def __init__(self, secrets: McpSecretStore, log_dir: Path,
                 on_tools_changed: Callable[[str, list[McpToolSpec]], None] | None = None,
                 store_image: Callable[[str, bytes], Attachment] | None = None) -> None:
        self._secrets, self._log_dir, self._on_tools_changed = secrets, log_dir, on_tools_changed
        self._store_image = store_image
        self._hub: McpHub | None = None
        self.user: McpUser | None = None  # who answers the servers' questions (None: nobody, they are declined)
        self.sampler: McpSampler | None = None  # runs the servers' sampling requests the user approved
        self.show_sign_in: Callable[[str, str], None] | None = None  # (server, URL) of an OAuth sign-in; None: error
        self.remember_sampling: Callable[[str], None] | None = None  # a server's sampling allowed always: stored

    def _get(self) -> McpHub:
        if self._hub is None:
            from data.mcp.hub import McpHub

            self._hub = McpHub(self._secrets, self._log_dir, on_tools_changed=self._on_tools_changed,
                               store_image=self._store_image, user=self.user, sampler=self.sampler,
                               show_sign_in=self.show_sign_in, remember_sampling=self.remember_sampling)
        return self._hub

    async def list_tools(self, server: McpServer) -> Sequence[McpToolSpec]:
        """See McpHub.list_tools."""
        return await self._get().list_tools(server)

    async def call_tool(self, server: McpServer, tool: str, arguments: Mapping[str, Any],
                        progress: ProgressReport | None = None) -> ToolOutcome:
        """See McpHub.call_tool."""
        return await self._get().call_tool(server, tool, arguments, progress)

    async def roots_changed(self, server: McpServer) -> None:
        """Tells a running server its roots changed (nothing to do when no server was started)."""
        if self._hub is not None:
            await self._hub.roots_changed(server)

    def catalog(self) -> McpCatalog:
        """The servers' prompts and resources (the hub, started on first use)."""
        return self._get()

    def log_path(self, server: str) -> str:
        """Where the stderr of a stdio server goes."""
        return str(self._log_dir / f"{server}.log")

    def close(self) -> None:
        """Stops every server started (nothing to do when none was)."""
        if self._hub is not None:
            self._hub.close()
