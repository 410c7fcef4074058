"""No MCP process outlives a `palimpsest` command, as real processes: a stdio server that hangs on start (and the
child it started) is gone once `mcp add` and `mcp import` exit, and a server a `chat` used is gone with the child
one of its tools spawned once the chat exits. Checked through /proc."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from domain.usecases.generate_title import TITLE_SYSTEM
from tests.cli.harness import ROOT, Cli
from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply, ToolCall, ToolResultPart
from tests.mcp.test_process_groups import _alive

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="checks processes through /proc")

TINY = str(ROOT / "tests" / "mcp" / "tiny_servers.py")
KEY = "sk-ant-mcp-groups-41d7"
MODEL = "claude-mcp-groups-200k"


def _pids(pidfile: Path) -> list[int]:
    return [int(line) for line in pidfile.read_text().split()] if pidfile.exists() else []


def _survivors(pids: list[int], seconds: float = 5.0) -> list[int]:
    """The processes still alive after `seconds` (they are given that long to finish dying); killed after."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    alive = [p for p in pids if _alive(p)]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    return alive


@pytest.fixture()
def cli(tmp_path: Path) -> Cli:
    (tmp_path / "keychain").mkdir()
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")


def test_a_server_that_hangs_on_start_is_gone_with_its_child_after_mcp_add_and_mcp_import(
    cli: Cli, tmp_path: Path,
) -> None:
    added_pids, imported_pids = tmp_path / "added.pids", tmp_path / "imported.pids"
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {"stuck": {"command": sys.executable,
                                                           "args": [TINY, "hang_family", str(imported_pids)]}}}))
    commands = (["mcp", "add", "stuck", "--", sys.executable, TINY, "hang_family", str(added_pids)],
                ["mcp", "import", str(config)])
    running = [subprocess.Popen([sys.executable, "-m", "app", *args], env=cli.env, cwd=ROOT, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE) for args in commands]
    done = [proc.communicate(timeout=120) for proc in running]  # each waits out the 30 s start limit
    assert "did not start within 30 s" in done[0][1], done[0]
    assert "Skipped stuck" in done[1][1] and "did not start within 30 s" in done[1][1], done[1]
    pids = _pids(added_pids) + _pids(imported_pids)
    assert len(pids) == 4, "each server wrote its pid and its child's"
    assert _survivors(pids) == [], "an MCP server (or its child) outlived the command"


class SpawnBrain:
    """Has the `family` server's tool start a child once, then answers."""

    def respond(self, request: NormalizedRequest) -> Answer:
        if TITLE_SYSTEM in request.system:
            return Reply.of_text("Groups")
        results = [p for m in request.messages for p in m.parts if isinstance(p, ToolResultPart)]
        if not results:
            return Reply(tool_calls=(ToolCall("family__start_child", {}),))
        return Reply.of_text("Done: " + results[-1].text)


@pytest.fixture()
def model(cli: Cli) -> Iterator[None]:
    with FakeAnthropicServer(SpawnBrain(), api_key=KEY) as server:
        assert cli.run("providers", "set", "anthropic", "--base-url", server.base_url, subprocess_run=False).code == 0
        assert cli.run("models", "add", "anthropic", MODEL, "--context-window", "200000",
                       subprocess_run=False).code == 0
        assert cli.run("keys", "set", "anthropic", stdin=KEY + "\n", subprocess_run=False).code == 0
        yield


def test_a_server_a_chat_used_is_gone_with_the_child_its_tool_spawned_after_the_chat(
    cli: Cli, model: None, tmp_path: Path,
) -> None:
    pidfile = tmp_path / "family.pids"
    added = cli.run("mcp", "add", "family", "--", sys.executable, TINY, "family", str(pidfile))
    assert added.code == 0 and "Added MCP server family with 1 tool" in added.out, added.err
    assert cli.run("mcp", "permission", "family", "start_child", "allow").code == 0
    at_add = _pids(pidfile)
    assert len(at_add) == 2 and _survivors(at_add) == [], "the server `mcp add` started outlived it"
    chat = cli.run("chat", "--jsonl", "-p", "anthropic", "-m", MODEL, "Start a child")
    assert chat.code == 0, chat.err
    assert "family__start_child" in chat.out
    spawned = _pids(pidfile)[2:]
    assert len(spawned) == 3, "the chat's server, the child it started, and the child the tool started"
    assert _survivors(spawned) == [], "the chat's MCP server or a child of it outlived the chat"
