"""`palimpsest mcp prompts|resources NAME`, and the prompt and resources `chat --mcp-prompt / --mcp-resource` send."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, TextIO
from urllib.parse import urlsplit

from app.cli.tables import one_line, table
from domain.attachment import Attachment
from domain.errors import InvalidInput
from domain.mcp_catalog import McpResourceContent, prompt_arguments, split_prompt_ref
from domain.usecases.mcp_servers import require_server
from domain.usecases.refresh_attached_resources import ReadResource

if TYPE_CHECKING:
    from app.container import Container
    from data.attachments.intake import AttachmentIntake


async def list_catalog(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
    """Prints a server's prompts (or one argument's completions) or its resources."""
    server = require_server(c.mcp_servers, args.name)
    catalog = c.mcp.catalog()
    if args.action == "resources":
        resources = await catalog.list_resources(server)
        if not resources:
            err.write(f"{server.name} lists no resources.\n")
            return
        rows = [(r.uri, r.name, r.mime_type or "", one_line(r.description, 50)) for r in resources]
        out.write(table(("URI", "NAME", "TYPE", "DESCRIPTION"), rows) + "\n")
        return
    if args.complete:
        prompt, argument, prefix = args.complete
        for value in await catalog.complete(server, prompt, argument, prefix):
            out.write(value + "\n")
        return
    prompts = await catalog.list_prompts(server)
    if not prompts:
        err.write(f"{server.name} offers no prompts.\n")
        return
    listed = [(p.name, " ".join(a.name + ("*" if a.required else "") for a in p.arguments),
             one_line(p.description, 60)) for p in prompts]
    out.write(table(("PROMPT", "ARGUMENTS", "DESCRIPTION"), listed) + "\n")
    err.write(f"Send one with: palimpsest chat --mcp-prompt {server.name}/PROMPT NAME=VALUE ...\n")


def trailing_message(words: list[str]) -> tuple[list[str], str | None]:
    """`--mcp-prompt` takes every word after it: a last word that is not NAME=VALUE is the chat's MESSAGE."""
    if len(words) > 1 and "=" not in words[-1]:
        return words[:-1], words[-1]
    return words, None


async def prompt_message(c: Container, words: list[str]) -> str:
    """The text of `--mcp-prompt SERVER/PROMPT NAME=VALUE ...`, filled in by its server."""
    server_name, name = split_prompt_ref(words[0])
    given: dict[str, str] = {}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise InvalidInput(f"Give the prompt's arguments as NAME=VALUE, not {word!r}.")
        given[key] = value
    server = require_server(c.mcp_servers, server_name)
    catalog = c.mcp.catalog()
    prompt = next((p for p in await catalog.list_prompts(server) if p.name == name), None)
    if prompt is None:
        raise InvalidInput(f"The MCP server {server.name!r} has no prompt {name!r}; see: palimpsest mcp prompts "
                           f"{server.name}")
    text = await catalog.get_prompt(server, name, prompt_arguments(prompt, given))
    if not text.strip():
        raise InvalidInput(f"The prompt {name!r} of {server.name!r} came back empty.")
    return text


async def resource_attachments(c: Container, pairs: list[list[str]]) -> list[Attachment]:
    """`--mcp-resource SERVER URI` read from the server and taken in as attachments (text as a text file)."""
    return [a for read in await read_resources(c, pairs) for a in read.attachments]


async def read_resources(c: Container, pairs: list[list[str]]) -> list[ReadResource]:
    """Each `--mcp-resource SERVER URI` read: its attachments, and its hash to remember in the conversation."""
    return [await c.attached_resources.read(server_name, uri) for server_name, uri in pairs]


def resource_files(intake: AttachmentIntake, contents: Sequence[McpResourceContent]) -> list[Attachment]:
    """A read resource's parts taken in as attachments (text as a text file, named after the URI)."""
    taken: list[Attachment] = []
    for content in contents:
        data = content.data if content.data is not None else (content.text or "").encode("utf-8")
        taken.append(intake.from_bytes(_file_name(content.uri, content.mime_type), data))
    return taken


def _file_name(uri: str, mime_type: str | None) -> str:
    """A file name for a resource: its URI's last path segment (or host), with `.txt` for text without one."""
    parts = urlsplit(uri)
    name = PurePosixPath(parts.path).name or parts.netloc or "resource"
    if "." not in name and (mime_type or "text/plain").startswith("text/"):
        name += ".txt"
    return name
