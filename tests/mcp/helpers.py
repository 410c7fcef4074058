"""Shared pieces of the MCP tests: the test server's configuration, an in-memory secret store, an HTTP server."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from domain.mcp import McpServer, McpServerSecrets, McpTransport

ROOT = Path(__file__).resolve().parents[2]


def stdio_server(name: str = "files", timeout_s: float = 20.0) -> McpServer:
    """The test server, started over stdio with this Python."""
    return McpServer(name, McpTransport.STDIO, command=sys.executable, args=("-m", "tests.mcp.server"),
                     timeout_s=timeout_s)


async def log_once(path: str | Path, condition: Callable[[str], bool], timeout_s: float = 10.0) -> str:
    """A stdio server's log once `condition` holds for its text: the server's stderr reaches the file through a
    pipe and a copying thread, so what it wrote before it answered may land in the file a moment after the answer.
    Fails with the log's text after `timeout_s`."""
    path = Path(path)
    deadline = time.monotonic() + timeout_s
    while True:
        text = path.read_text() if path.exists() else ""
        if condition(text):
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"the log {path} did not reach the expected state within {timeout_s} s:\n{text}")
        await asyncio.sleep(0.01)


class MemorySecrets:
    """An McpSecretStore in a dict, recording what it was given."""

    def __init__(self) -> None:
        self.stored: dict[str, McpServerSecrets] = {}

    def get(self, server: str) -> McpServerSecrets:
        return self.stored.get(server, McpServerSecrets())

    def set(self, server: str, secrets: McpServerSecrets) -> None:
        self.stored[server] = secrets

    def delete(self, server: str, secrets_names: McpServer) -> None:
        self.stored.pop(server, None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def http_server(module: str = "tests.mcp.server", log: Path | None = None) -> Iterator[str]:
    """A test server (`module`) over Streamable HTTP on 127.0.0.1, as a subprocess, its standard error in `log`
    (or discarded); yields its URL."""
    port = free_port()
    command = [sys.executable, "-m", module, "--http", str(port)]
    if log is None:
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    else:
        with log.open("wb") as errors:  # the server holds its own copy
            process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=errors)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError("the MCP test server did not start")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)
