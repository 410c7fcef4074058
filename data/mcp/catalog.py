"""A server's prompts and resources as the SDK returns them, read into the domain's types."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import mcp_types as types
from mcp import ClientSession

from domain.mcp_catalog import McpPrompt, McpPromptArgument, McpResource, McpResourceContent, McpResourceTemplate


def prompt_of(prompt: types.Prompt) -> McpPrompt:
    """A listed prompt."""
    arguments = tuple(McpPromptArgument(a.name, a.description or "", bool(a.required)) for a in prompt.arguments or ())
    return McpPrompt(prompt.name, prompt.description or "", arguments)


def prompt_text(result: types.GetPromptResult) -> str:
    """A filled-in prompt as one message's text: its messages' texts in order (an assistant part marked so, an
    embedded text resource as its text, anything else as a one-line description)."""
    parts = []
    for message in result.messages:
        text = _content_text(message.content)
        parts.append(text if message.role == "user" else f"[{message.role}]\n{text}")
    return "\n\n".join(p for p in parts if p.strip())


def _content_text(content: Any) -> str:
    if isinstance(content, types.TextContent):
        return content.text
    if isinstance(content, types.EmbeddedResource) and isinstance(content.resource, types.TextResourceContents):
        return f"[resource {content.resource.uri}]\n{content.resource.text}"
    return f"[{getattr(content, 'type', 'content')} omitted]"


def resource_of(resource: types.Resource) -> McpResource:
    """A listed resource."""
    return McpResource(str(resource.uri), resource.name, resource.description or "", resource.mime_type)


def contents_of(result: types.ReadResourceResult) -> list[McpResourceContent]:
    """A read resource's parts: text as text, blobs decoded (one that is not base64 is skipped)."""
    out = []
    for content in result.contents:
        if isinstance(content, types.TextResourceContents):
            out.append(McpResourceContent(str(content.uri), content.mime_type, text=content.text))
        elif isinstance(content, types.BlobResourceContents):
            try:
                data = base64.b64decode(content.blob, validate=True)
            except (binascii.Error, ValueError):
                continue
            out.append(McpResourceContent(str(content.uri), content.mime_type, data=data))
    return out


async def list_prompts(session: ClientSession) -> list[McpPrompt]:
    """Every prompt the server lists (all pages)."""
    prompts: list[McpPrompt] = []
    cursor: str | None = None
    while True:
        result = await session.list_prompts(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        prompts += [prompt_of(p) for p in result.prompts]
        cursor = result.next_cursor
        if not cursor:
            return prompts


async def list_resources(session: ClientSession) -> list[McpResource]:
    """Every resource the server lists (all pages)."""
    resources: list[McpResource] = []
    cursor: str | None = None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        result = await session.list_resources(params=params)
        resources += [resource_of(r) for r in result.resources]
        cursor = result.next_cursor
        if not cursor:
            return resources


async def list_resource_templates(session: ClientSession) -> list[McpResourceTemplate]:
    """Every resource template the server lists (all pages)."""
    templates: list[McpResourceTemplate] = []
    cursor: str | None = None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        result = await session.list_resource_templates(params=params)
        templates += [McpResourceTemplate(t.uri_template, t.name, t.description or "", t.mime_type)
                      for t in result.resource_templates]
        cursor = result.next_cursor
        if not cursor:
            return templates
