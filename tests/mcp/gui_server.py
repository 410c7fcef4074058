"""A real MCP server (the SDK's MCPServer) for the desktop app's MCP tests: prompts with argument completion, text
and image resources, a resource template, and a tool whose result links to resources.
`python -m tests.mcp.gui_server`."""

from __future__ import annotations

import io
from typing import Any

import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, UserMessage

LANGUAGES = ("python", "perl", "php", "rust")
server = MCPServer("palimpsest-test-gui")


def _png() -> bytes:
    from PIL import Image as Pillow

    buffer = io.BytesIO()
    Pillow.new("RGB", (64, 48), (200, 80, 40)).save(buffer, format="PNG")
    return buffer.getvalue()


@server.prompt()
def review(language: str, focus: str = "bugs") -> str:
    """Review code in a language, with a focus."""
    return f"Review this {language} code for {focus}."


@server.prompt()
def standup() -> list[Any]:
    """What did I do yesterday? (two messages)"""
    return [UserMessage("Summarize my standup."), AssistantMessage("Which team?")]


@server.completion()
async def complete(ref: Any, argument: Any, context: Any) -> types.Completion | None:
    if isinstance(ref, types.PromptReference) and ref.name == "review" and argument.name == "language":
        return types.Completion(values=[x for x in LANGUAGES if x.startswith(argument.value)])
    return None


@server.resource("notes://today", name="today", description="Today's notes", mime_type="text/plain")
def today() -> str:
    return "Buy milk. Call Ada."


@server.resource("images://logo.png", name="logo", description="The logo", mime_type="image/png")
def logo() -> bytes:
    return _png()


@server.resource("notes://day/{date}", name="day", description="The notes of a day", mime_type="text/plain")
def day(date: str) -> str:
    return f"Notes of {date}: nothing planned."


@server.tool(structured_output=False)
def find_notes(query: str) -> list[Any]:
    """Finds notes; links to them."""
    return [f"Found 2 notes for {query!r}.",
            types.ResourceLink(type="resource_link", uri="notes://today", name="today", description="Today's notes"),
            types.ResourceLink(type="resource_link", uri="images://logo.png", name="logo", mime_type="image/png")]


if __name__ == "__main__":
    server.run()
