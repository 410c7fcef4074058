"""A real MCP server written with the SDK's own server API, for tests: `python -m tests.mcp.server [--http PORT]`."""

from __future__ import annotations

import asyncio
import base64
import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image

server = MCPServer("palimpsest-test-files")

# A 1x1 transparent PNG.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)


@server.tool()
def read_file(path: str) -> str:
    """Read a text file by name (test data: the name is echoed back)."""
    print(f"read_file {path}", file=sys.stderr, flush=True)
    return f"contents of {os.path.expandvars(path)}"


@server.tool()
def big_file(kilobytes: int = 200) -> str:
    """Return a large text of the given size in kilobytes, numbered lines."""
    lines, size, i = [], 0, 0
    while size < kilobytes * 1000:
        line = f"line {i:06d} " + "x" * 40
        lines.append(line)
        size += len(line) + 1
        i += 1
    return "\n".join(lines)


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the reason given."""
    raise ToolError(f"cannot do it: {reason}")


@server.tool()
def crash() -> str:
    """Kills the server process in the middle of the call."""
    print("crashing now", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool()
async def wait_to_be_killed(pid_file: str) -> str:
    """Writes this server's process id to pid_file, then waits (for the test to kill the process)."""
    with open(pid_file, "w", encoding="utf-8") as f:
        f.write(str(os.getpid()))
    await asyncio.sleep(60)
    return "not killed"


@server.tool()
async def hang() -> str:
    """Never answers."""
    await asyncio.sleep(3600)
    return "never"


@server.tool()
def picture() -> Image:
    """Returns a tiny PNG image."""
    return Image(data=PIXEL, format="png")


@server.tool()
def auth_header(ctx: Context) -> str:
    """Over HTTP: the Authorization header this request carried ("none" without one, "stdio" over stdio)."""
    request = ctx.request_context.request
    if request is None:
        return "stdio"
    return str(request.headers.get("authorization", "none"))


@server.tool()
async def chatty(ctx: Context, megabytes: int = 2) -> str:
    """Writes this many megabytes to stderr and sends 200 log messages before answering."""
    line = "noise " * 170 + "\n"
    for _ in range(megabytes * 1000):
        sys.stderr.write(line)
    sys.stderr.flush()
    for i in range(200):
        await ctx.info(f"progress note {i}")
    return "said a lot"


def shout(text: str) -> str:
    """Upper-cases the text (added at run time by add_shout)."""
    return text.upper()


@server.tool()
async def add_shout(ctx: Context) -> str:
    """Adds the shout tool and tells the client that the tool list changed."""
    server.add_tool(shout)
    await ctx.session.send_tool_list_changed()
    return "added shout"


def main() -> None:
    """Runs over stdio, or over Streamable HTTP on 127.0.0.1 with `--http PORT`."""
    if len(sys.argv) >= 3 and sys.argv[1] == "--http":
        server.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        print("test server starting", file=sys.stderr, flush=True)
        server.run()


if __name__ == "__main__":
    main()
