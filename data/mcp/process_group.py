"""A stdio MCP server's processes, ended as a group: the SDK starts each server in its own session (POSIX; a Job
Object on Windows) but only kills the group when the server does not exit by itself, so a child a tool spawned
outlived a server that ended cleanly, and a server that hung on start outlived a cancelled start. The pid of each
server the SDK spawns is recorded (for the connection that started it) and its whole group is ended when the
connection closes. The pid comes from wrapping the SDK's private `stdio._create_platform_compatible_process`: its
public `stdio_client` (mcp 2.3) yields only the read and write streams and nothing public names the process (hence
the pin mcp<3; install() fails loudly should the function go). Its stderr goes through a pipe into a log file capped
at LOG_MAX_BYTES and rotated (NAME.log.1 holds the output before)."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TextIO

log = logging.getLogger(__name__)
LOG_MAX_BYTES = 5_000_000  # a server's log: 5 MB, then it becomes NAME.log.1 and a new one starts (10 MB at most)
_spawned: ContextVar[list[int] | None] = ContextVar("mcp_spawned", default=None)
_installed = False


def install() -> None:
    """Records the pid of every server process the SDK's stdio client spawns (once per process)."""
    global _installed
    if _installed:
        return
    from mcp.client import stdio

    original: Callable[..., Awaitable[Any]] = stdio._create_platform_compatible_process

    async def recorded(*args: Any, **kwargs: Any) -> Any:
        process = await original(*args, **kwargs)
        pids = _spawned.get()
        if pids is not None:
            pids.append(process.pid)
        return process

    stdio._create_platform_compatible_process = recorded
    _installed = True


@contextlib.contextmanager
def recording() -> Iterator[list[int]]:
    """The pids of the server processes spawned inside the block (by this task)."""
    pids: list[int] = []
    token = _spawned.set(pids)
    try:
        yield pids
    finally:
        _spawned.reset(token)


def end_groups(pids: list[int], grace_s: float = 1.0) -> None:
    """Ends every process of each server's group (SIGTERM, then SIGKILL after `grace_s`); POSIX only (on Windows
    the SDK's Job Object ends the tree with the server)."""
    if sys.platform == "win32" or not hasattr(os, "killpg"):
        return
    live = [pid for pid in pids if _signal_group(pid, signal.SIGTERM)]
    deadline = time.monotonic() + grace_s
    while live and time.monotonic() < deadline:
        live = [pid for pid in live if _signal_group(pid, 0)]
        if live:
            time.sleep(0.02)
    for pid in live:
        _signal_group(pid, signal.SIGKILL)


def _signal_group(pgid: int, sig: int) -> bool:
    """Whether the group still had a process to signal."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member changed its user: nothing more can be done
        return False
    return True


class CappedLog:
    """A pipe whose reading end a thread copies into `path` (appended, as across the server's restarts); when the
    file reaches its cap it becomes `path`.1 (replacing the one before) and a new file starts, so the two together
    never pass twice the cap. The server is never blocked on a full pipe."""

    def __init__(self, path: Path, max_bytes: int | None = None) -> None:
        self.path = path
        self.max_bytes = max(1, LOG_MAX_BYTES if max_bytes is None else max_bytes)
        path.parent.mkdir(parents=True, exist_ok=True)
        read_fd, write_fd = os.pipe()
        self.writer: TextIO = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
        self._thread = threading.Thread(target=self._copy, args=(read_fd,), name=f"mcp-log-{path.stem}",
                                        daemon=True)
        self._thread.start()

    def close_writer(self) -> None:
        """Closes this process's writing end (the server and its children hold their own)."""
        with contextlib.suppress(OSError):
            self.writer.close()

    def _copy(self, read_fd: int) -> None:
        try:
            with os.fdopen(read_fd, "rb") as source:
                out = self.path.open("ab")
                try:
                    size = out.tell()
                    while chunk := source.read1(65536):
                        while chunk:
                            if size >= self.max_bytes:
                                out, size = self._rotate(out)
                            part = chunk[: self.max_bytes - size]
                            out.write(part)
                            size += len(part)
                            chunk = chunk[len(part):]
                        out.flush()
                finally:
                    out.close()
        except OSError as exc:
            log.warning("The MCP server log %s could not be written: %s", self.path, exc)

    def _rotate(self, out: Any) -> tuple[Any, int]:
        """The new log file (the full one kept as .1) and the size of its opening line."""
        out.close()
        os.replace(self.path, self.path.with_name(self.path.name + ".1"))
        fresh = self.path.open("ab")
        head = (f"[log rotated: it reached {self.max_bytes:,} bytes; the earlier output is in "
                f"{self.path.name}.1]\n").encode()
        fresh.write(head)
        return fresh, len(head)
