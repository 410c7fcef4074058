"""The resource links an MCP tool's result carries, read back from the result's text (`[resource link URI (NAME)…]`,
as the MCP client writes a `resource_link` block), for the tool card to offer them."""

from __future__ import annotations

import re

_LINK = re.compile(r"^\[resource link (\S+) \((.*?)\)(?: — .*)?\]$", re.MULTILINE)
MAX_LINKS = 8


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
