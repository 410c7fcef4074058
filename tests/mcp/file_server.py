"""A real MCP server (the SDK's MCPServer) whose one resource, notes://shared/list, is the text of a file named on its
command line, read at each resources/read: the file changed between two runs is a changed resource, and a file that
is gone makes the read fail. `python -m tests.mcp.file_server PATH`."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("palimpsest-test-file")
PATH = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("notes.txt")


@server.resource("notes://shared/list", name="list", description="The shared list (a file)", mime_type="text/plain")
def shared_list() -> str:
    return PATH.read_text(encoding="utf-8")  # FileNotFoundError: the server answers the read with an error


if __name__ == "__main__":
    server.run()
