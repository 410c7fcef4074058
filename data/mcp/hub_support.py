"""The hub's small helpers: progress reports across loops, what starting a server depends on, error reasons, the
loop's thread."""

from __future__ import annotations

import asyncio
import contextlib

import mcp_types as types
from mcp.shared.exceptions import MCPError

from domain.mcp import McpServer
from domain.provider_ports import ProgressReport


def on_loop(loop: asyncio.AbstractEventLoop, progress: ProgressReport) -> ProgressReport:
    """`progress` called on `loop` (the caller's) from the hub's thread; a report after that loop closed is dropped."""

    def report(value: float, total: float | None, message: str | None) -> None:
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(progress, value, total, message)

    return report


def launch(server: McpServer) -> tuple[object, ...]:
    """What starting or reaching the server depends on (its rules, tools, switches and roots do not count: changed
    roots are notified to the running server)."""
    return (server.transport, server.command, server.args, server.env_names, server.url, server.header_names)


def connection_closed(err: BaseException) -> bool:
    """True for the SDK's error of a connection that closed."""
    return isinstance(err, MCPError) and err.code == -32000


def session_gone(err: BaseException) -> bool:
    """True for a Streamable HTTP server's 404 for the session (ended, or not this credential's): a new session must
    be started, and the request was not run."""
    return isinstance(err, MCPError) and err.code == types.INVALID_REQUEST and \
        str(err.error.message) in ("Session not found", "Session terminated")


def reason(err: BaseException) -> str:
    """Why a server could not start, in a few words."""
    if isinstance(err, BaseExceptionGroup):
        return "; ".join(reason(e) for e in err.exceptions)
    if isinstance(err, FileNotFoundError):
        return f"command not found ({err.filename or err})"
    return str(err) or type(err).__name__


def run_forever(loop: asyncio.AbstractEventLoop) -> None:
    """The hub thread's body."""
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        loop.close()
