"""The resource links an MCP tool's result carries, read back from the result's text (`[resource link URI (NAME)…]`,
as the MCP client writes a `resource_link` block), for the tool card to offer them."""

from __future__ import annotations

import re

_LINK = re.compile(r"^\[resource link (\S+) \((.*?)\)(?: — .*)?\]$", re.MULTILINE)
MAX_LINKS = 8
SIGN_IN_NEEDED = "needs you to sign in"  # what an MCP tool's error says when its remote server wants a sign-in


def resource_links(output: str | None) -> list[tuple[str, str]]:
    """(uri, name) of each resource link in a tool's output, in order, at most MAX_LINKS, each URI once."""
    found: list[tuple[str, str]] = []
    for match in _LINK.finditer(output or ""):
        uri, name = match.group(1), match.group(2) or match.group(1)
        if all(uri != u for u, _ in found):
            found.append((uri, name))
        if len(found) == MAX_LINKS:
            break
    return found


def needs_sign_in(tool_name: str | None, output: str | None, is_error: bool) -> bool:
    """Whether a failed MCP tool call failed because its remote server wants the user to sign in."""
    return is_error and bool(tool_name) and "__" in (tool_name or "") and SIGN_IN_NEEDED in (output or "")
