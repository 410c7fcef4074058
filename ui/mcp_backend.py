"""What the chat screen needs from MCP servers besides tools: prompts for `/server:prompt`, resources to attach or
open, and a browser sign-in for a remote server."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from domain.mcp_catalog import McpPrompt, McpResource, McpResourceTemplate
from domain.models import SessionId
from ui.attachments_backend import AttachmentPreview


@dataclass(frozen=True)
class ServerPrompt:
    """A prompt and the server offering it (the composer's `/server:prompt`)."""

    server: str
    prompt: McpPrompt

    @property
    def command(self) -> str:
        """`server:prompt`, as typed after the slash."""
        return f"{self.server}:{self.prompt.name}"


@dataclass(frozen=True)
class ServerResource:
    """A resource, or a resource template, and the server listing it."""

    server: str
    resource: McpResource | None = None
    template: McpResourceTemplate | None = None

    @property
    def label(self) -> str:
        """Its name, or its URI when it has none."""
        item = self.resource or self.template
        return (item.name if item is not None else "") or self.uri

    @property
    def uri(self) -> str:
        """The resource's URI (a template's URI template)."""
        if self.resource is not None:
            return self.resource.uri
        return self.template.uri_template if self.template is not None else ""


@dataclass(frozen=True)
class McpListing:
    """What the enabled servers listed, and a sentence per server that could not list them."""

    prompts: tuple[ServerPrompt, ...] = ()
    resources: tuple[ServerResource, ...] = ()
    problems: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class OpenedResource:
    """A resource read for the user: its text to show, or a file to open in the system's viewer."""

    title: str
    text: str | None = None
    path: str | None = None


OpenUrl = Callable[[str], None]  # hands an authorization URL to the browser (called on the MCP servers' thread)


class McpCatalogBackend(Protocol):
    """MCP prompts and resources for the chat screen; every call runs on the worker."""

    async def mcp_prompts(self, session_id: SessionId | None) -> McpListing:
        """The prompts of every server on for the conversation (all servers before it exists)."""
        raise NotImplementedError

    async def complete_mcp_argument(self, server: str, prompt: str, argument: str, value: str,
                                    context: Mapping[str, str]) -> Sequence[str]:
        """The server's completions of a prompt argument's partial value."""
        raise NotImplementedError

    async def fill_mcp_prompt(self, server: str, prompt: str, arguments: Mapping[str, str]) -> str:
        """The prompt filled in by its server, as one message's text (InvalidInput for a missing argument)."""
        raise NotImplementedError

    async def mcp_resources(self, session_id: SessionId | None) -> McpListing:
        """The resources and resource templates of every server on for the conversation."""
        raise NotImplementedError

    async def attach_mcp_resource(self, server: str, uri: str,
                                  session_id: SessionId | None = None) -> Sequence[AttachmentPreview]:
        """Reads a resource and takes its parts in as attachments (text as a text file), as `chat --mcp-resource`;
        given the conversation, it is subscribed to, and read again before a send after its server says it changed."""
        raise NotImplementedError

    async def open_mcp_resource(self, tool_name: str, uri: str) -> OpenedResource:
        """Reads a resource a tool's result linked to, through the server of that tool (`server__tool`)."""
        raise NotImplementedError

    async def sign_in_mcp_server(self, name: str, url: str | None, open_url: OpenUrl) -> None:
        """Signs in to a remote server in the browser: `open_url` gets the authorization URL, the browser's redirect
        to 127.0.0.1 completes it and the tokens go to the keychain; cancelling the call ends the wait."""
        raise NotImplementedError
