"""An MCP stdio server never outlives the app: one that hangs on start is ended, a child a tool spawned is ended with
its server, and a noisy server's stderr log is capped and rotated (two starts of a noisy server made 13.5 MB).
Real processes, checked through /proc."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from data.mcp import connection as connection_module
from data.mcp.hub import McpHub
from domain.mcp import McpServer, McpServerError, McpTransport
from tests.mcp.helpers import ROOT, MemorySecrets

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="checks processes through /proc")


def _tiny(name: str, kind: str, arg: str) -> McpServer:
    return McpServer(name, McpTransport.STDIO, command=sys.executable,
                     args=(str(ROOT / "tests" / "mcp" / "tiny_servers.py"), kind, arg), timeout_s=20)


def _alive(pid: int) -> bool:
    """Whether the process exists and is not a zombie (a zombie is dead, only not yet waited for)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return not _alive(pid)


def _wait_for_pid(pidfile: Path) -> int:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if pidfile.exists() and pidfile.read_text().strip():
            return int(pidfile.read_text())
        time.sleep(0.05)
    raise AssertionError(f"{pidfile} was never written")


async def test_a_server_that_hangs_on_start_is_ended(tmp_path: Path) -> None:
    pidfile = tmp_path / "hang.pid"
    hub = McpHub(MemorySecrets(), tmp_path / "logs", start_timeout_s=1.5)
    try:
        with pytest.raises(McpServerError, match=r"did not start within 1\.5 s"):
            await hub.list_tools(_tiny("hang", "hang", str(pidfile)))
    finally:
        hub.close()
    pid = _wait_for_pid(pidfile)
    try:
        assert _gone_within(pid, 10), f"the hanging MCP server {pid} outlived the hub"
    finally:
        if _alive(pid):
            os.kill(pid, 9)


async def test_a_child_a_tool_spawned_ends_with_its_server(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    hub = McpHub(MemorySecrets(), tmp_path / "logs")
    try:
        outcome = await hub.call_tool(_tiny("spawner", "spawn", str(pidfile)), "start_child", {})
        assert outcome.output.startswith("started"), outcome.output
        child = _wait_for_pid(pidfile)
        assert _alive(child)
    finally:
        hub.close()
    try:
        assert _gone_within(child, 10), f"the child {child} a tool spawned outlived its server"
    finally:
        if _alive(child):
            os.kill(child, 9)


async def test_a_noisy_servers_log_is_capped_and_rotated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection_module, "LOG_MAX_BYTES", 100_000)
    for _ in range(2):
        hub = McpHub(MemorySecrets(), tmp_path / "logs")
        try:
            await hub.list_tools(_tiny("noisy", "noisy", "2000"))  # about 420 KB of stderr per start
        finally:
            hub.close()
    log = Path(hub.log_path("noisy"))
    sizes = [p.stat().st_size for p in log.parent.glob("noisy.log*")]
    assert len(sizes) == 2 and max(sizes) <= 100_000 and sum(sizes) <= 200_000  # 840 KB written, 200 KB kept
    assert log.read_text().startswith("[log rotated: it reached 100,000 bytes; the earlier output is in noisy.log.1]")
    assert "noise line 1999 " in log.read_text()  # the newest output is kept
