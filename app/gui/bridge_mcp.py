"""The chat screen's MCP prompts, resources and browser sign-in over the Container (on the worker)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

from app.cli.mcp_catalog_cmd import resource_attachments
from app.container import Container
from app.mcp_resource_watch import watch_resource
from data.attachments.thumbnails import thumbnail_png, viewable_copy
from domain.attachment import AttachmentKind
from domain.errors import InvalidInput
from domain.mcp import McpServer, McpServerError, McpTransport, check_url, split_name
from domain.mcp_catalog import prompt_arguments
from domain.models import SessionId
from domain.usecases.mcp_servers import require_server
from ui.attachments_backend import AttachmentPreview
from ui.mcp_backend import McpListing, OpenedResource, OpenUrl, ServerPrompt, ServerResource

log = logging.getLogger(__name__)


class McpBridge:
    """Implements McpCatalogBackend."""

    _c: Container

    def _enabled(self, session_id: SessionId | None) -> list[McpServer]:
        session = self._c.storage.sessions.get(session_id) if session_id else None
        agent = session.current_agent_id if session is not None else None
        return [s for s in self._c.mcp_servers.list() if s.enabled_for(agent, session_id)]

    async def mcp_prompts(self, session_id: SessionId | None) -> McpListing:
        catalog, found, problems = self._c.mcp.catalog(), [], []
        for server in self._enabled(session_id):
            try:
                found += [ServerPrompt(server.name, p) for p in await catalog.list_prompts(server)]
            except McpServerError as err:  # a server without prompts says so; the others are still offered
                problems.append(str(err))
        return McpListing(prompts=tuple(found), problems=tuple(problems))

    async def complete_mcp_argument(self, server: str, prompt: str, argument: str, value: str,
                                    context: Mapping[str, str]) -> Sequence[str]:
        found = require_server(self._c.mcp_servers, server)
        try:
            return await self._c.mcp.catalog().complete(found, prompt, argument, value, context)
        except McpServerError as err:  # no completions: the user types the value
            log.info("No completions from %s: %s", server, err)
            return []

    async def fill_mcp_prompt(self, server: str, prompt: str, arguments: Mapping[str, str]) -> str:
        found = require_server(self._c.mcp_servers, server)
        catalog = self._c.mcp.catalog()
        listed = next((p for p in await catalog.list_prompts(found) if p.name == prompt), None)
        if listed is None:
            raise InvalidInput(f"The MCP server {server!r} has no prompt {prompt!r}.")
        text = await catalog.get_prompt(found, prompt, prompt_arguments(listed, arguments))
        if not text.strip():
            raise InvalidInput(f"The prompt {prompt!r} of {server!r} came back empty.")
        return text

    async def mcp_resources(self, session_id: SessionId | None) -> McpListing:
        catalog, found, problems = self._c.mcp.catalog(), [], []
        for server in self._enabled(session_id):
            try:
                found += [ServerResource(server.name, resource=r) for r in await catalog.list_resources(server)]
                found += [ServerResource(server.name, template=t)
                          for t in await catalog.list_resource_templates(server)]
            except McpServerError as err:
                problems.append(str(err))
        return McpListing(resources=tuple(found), problems=tuple(problems))

    async def attach_mcp_resource(self, server: str, uri: str,
                                  session_id: SessionId | None = None) -> Sequence[AttachmentPreview]:
        taken = await resource_attachments(self._c, [[server, uri]])
        if session_id is not None:  # re-read before the conversation's next send when its server says it changed
            await watch_resource(self._c, session_id, server, uri)
        else:  # a new chat's draft: watched once its first message created the conversation
            self._c.mcp_watch.read_for_new_chat([a.sha256 for a in taken], server, uri)
        return [AttachmentPreview(a, thumbnail_png(self._c.media.data(a)) if a.kind is AttachmentKind.IMAGE
                                  else None) for a in taken]

    async def open_mcp_resource(self, tool_name: str, uri: str) -> OpenedResource:
        named = split_name(tool_name)
        if named is None:
            raise InvalidInput(f"{tool_name} is not a tool of an MCP server.")
        server = require_server(self._c.mcp_servers, named[0])
        contents = await self._c.mcp.catalog().read_resource(server, uri)
        if not contents:
            raise InvalidInput(f"The resource {uri} of {server.name!r} is empty.")
        texts = [c.text for c in contents if c.text is not None]
        if len(texts) == len(contents):
            return OpenedResource(uri, text="\n\n".join(texts))
        attachment = (await resource_attachments(self._c, [[server.name, uri]]))[0]
        path = viewable_copy(self._c.media.data(attachment), attachment.name, attachment.sha256)
        return OpenedResource(uri, path=str(path))

    async def sign_in_mcp_server(self, name: str, url: str | None, open_url: OpenUrl) -> None:
        from data.mcp.hub import McpHub

        stored = self._c.mcp_servers.get(name.strip())
        server = stored or McpServer(name.strip(), McpTransport.HTTP, url=check_url(url or ""))
        if server.transport is not McpTransport.HTTP:
            raise InvalidInput(f"The MCP server {name!r} runs on this computer; it has nothing to sign in to.")

        def show(_server: str, authorization_url: str) -> bool:
            open_url(authorization_url)
            return True  # the browser is opened by the app

        hub = McpHub(self._c.mcp_secrets, Path(self._c.mcp.log_path(server.name)).parent, show_sign_in=show)
        try:
            await hub.list_tools(server)  # a 401 starts the sign-in; the tokens land in the keychain
        finally:
            hub.close()
