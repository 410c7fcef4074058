"""Tiny stdio MCP servers for the process tests: `hang PIDFILE` writes its pid and never answers; `spawn PIDFILE`
answers (the SDK's server API) with a tool that starts a long-lived child and writes the child's pid; `noisy`
writes a lot to stderr before it answers; `family PIDFILE` and `hang_family PIDFILE` start a long-lived child at once
and append their own pid and the child's to PIDFILE, then answer (with a `start_child` tool that appends the pid of
each child it starts) or hang."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path


def hang(pidfile: Path) -> None:
    import os

    pidfile.write_text(str(os.getpid()))
    while True:  # reads nothing, answers nothing
        time.sleep(3600)


def spawn(pidfile: Path) -> None:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("spawner")

    @server.tool()
    def start_child() -> str:
        """Starts a child process that outlives this call."""
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        pidfile.write_text(str(child.pid))
        return f"started {child.pid}"

    server.run()


def _child(pidfile: Path, *pids: int) -> None:
    """Starts a child that would live for ten minutes and appends `pids` and its pid to the file."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with pidfile.open("a") as out:
        out.write("".join(f"{pid}\n" for pid in (*pids, child.pid)))


def family(pidfile: Path, hangs: bool) -> None:
    import os

    _child(pidfile, os.getpid())
    if hangs:
        while True:  # reads nothing, answers nothing
            time.sleep(3600)
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("family")

    @server.tool()
    def start_child() -> str:
        """Starts a child process that outlives this call."""
        _child(pidfile)
        return "started"

    server.run()


def noisy(lines: int) -> None:
    from mcp.server.mcpserver import MCPServer

    for n in range(lines):
        print(f"noise line {n} " + "x" * 200, file=sys.stderr)
    sys.stderr.flush()
    MCPServer("noisy").run()


if __name__ == "__main__":
    kind, arg = sys.argv[1], sys.argv[2]
    if kind == "hang":
        hang(Path(arg))
    elif kind == "spawn":
        spawn(Path(arg))
    elif kind in ("family", "hang_family"):
        family(Path(arg), hangs=kind == "hang_family")
    else:
        noisy(int(arg))
