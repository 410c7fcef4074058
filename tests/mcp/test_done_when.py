"""Issue 18's acceptance test, from a clean data directory through the real CLI: `palimpsest mcp add files --
python -m tests.mcp.server`, then chats whose fake model calls the server's tools; a 200 KB result is stored truncated
and paged with read_tool_result; the server killed mid-call gives a readable tool error and the next call and turn
work."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from domain.usecases.generate_title import TITLE_SYSTEM
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply, ToolCall, ToolResultPart
from tests.mcp.cli_env import Env, cli_env, last_turn

KEY = "sk-ant-mcp-test-77a1"
MODEL = "claude-mcp-200k"
MARKER_ID = re.compile(r'message_id="([^"]+)"')


class McpBrain:
    """Calls the MCP tools on cue (BIG, KILL <pid file>, READ) and answers with what the results said."""

    def __init__(self) -> None:
        self.results: list[ToolResultPart] = []
        self.offered: list[tuple[str, ...]] = []

    def respond(self, request: NormalizedRequest) -> Answer:
        if TITLE_SYSTEM in request.system:
            return Reply.of_text("MCP test")
        self.offered.append(request.tool_names)
        text, results = last_turn(request)
        self.results.extend(r for r in results if r not in self.results)
        words = text.split()
        if words[0] == "BIG":
            if not results:
                return Reply(tool_calls=(ToolCall("files__big_file", {"kilobytes": 200}),))
            if len(results) == 1:
                marker = MARKER_ID.search(results[0].text)
                assert marker is not None, results[0].text[-300:]
                args = {"message_id": marker.group(1), "offset": 100_000, "length": 120}
                return Reply(tool_calls=(ToolCall("read_tool_result", args),))
        elif words[0] == "KILL":
            if not results:
                return Reply(tool_calls=(ToolCall("files__wait_to_be_killed", {"pid_file": words[1]}),))
            if len(results) == 1:
                return Reply(tool_calls=(ToolCall("files__read_file", {"path": "after-the-crash.txt"}),))
        elif words[0] == "READ" and not results:
            return Reply(tool_calls=(ToolCall("files__read_file", {"path": "notes.txt"}),))
        return Reply.of_text("Done: " + " | ".join(r.text[:60] for r in results))


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env[McpBrain]]:
    with cli_env(tmp_path, McpBrain(), key=KEY, model=MODEL, chat_flags=()) as e:
        yield e


def _add_files_server(env: Env) -> None:
    added = env.run("mcp", "add", "files", "--", sys.executable, "-m", "tests.mcp.server")
    assert added.code == 0, added.err
    assert "Added MCP server files with 10 tools" in added.out


def test_a_200_kb_mcp_result_is_stored_truncated_and_paged_back_with_read_tool_result(env: Env) -> None:
    _add_files_server(env)
    listed = env.run("mcp", "list")
    assert listed.code == 0 and re.search(r"files\s+stdio\s+10", listed.out)

    result, lines = env.chat("BIG file please", "--allow-tools")

    assert result.code == 0, result.err
    assert "files__big_file" in env.brain.offered[0] and "files__hang" in env.brain.offered[0]
    big, page = env.brain.results
    assert not big.is_error and len(big.text) < 31_000
    assert "content truncated, showing first 30000 of" in big.text
    assert big.text.startswith("line 000000 ")
    assert not page.is_error
    assert "characters 100000-100120" in page.text
    assert re.search(r"\nline 00\d{4} x+", page.text)  # the original's lines, read back from the stored full text
    stored = [line for line in lines if line["type"] == "tool_result"]
    assert [s["truncated"] for s in stored] == [True, False]
    with closing(sqlite3.connect(env.cli.home / "palimpsest.db")) as db:
        outputs = db.execute("SELECT tool_name, length(tool_output) FROM messages WHERE type = 'tool_result'"
                             " ORDER BY seq").fetchall()
    assert outputs[0][0] == "files__big_file" and outputs[0][1] < 31_000


def test_without_allow_tools_and_without_a_terminal_an_ask_tool_is_refused_and_the_turn_completes(env: Env) -> None:
    _add_files_server(env)
    result, lines = env.chat("READ notes")
    assert result.code == 0, result.err
    [refusal] = env.brain.results
    assert refusal.is_error and "refused to run 'read_file'" in refusal.text
    assert "refused without asking (no terminal)" in result.err
    assert "response_complete" in [line["type"] for line in lines]

    assert env.run("mcp", "permission", "files", "read_file", "allow").code == 0
    result, _ = env.chat("READ notes")  # an allowed tool runs without asking
    assert result.code == 0, result.err
    assert env.brain.results[-1].text == "contents of notes.txt"


def test_killing_the_server_mid_call_gives_a_readable_error_and_the_next_call_and_turn_work(
    env: Env, tmp_path: Path
) -> None:
    _add_files_server(env)
    pid_file = tmp_path / "server.pid"
    killer = threading.Thread(target=_kill_when_written, args=(pid_file,), daemon=True)
    killer.start()

    result, lines = env.chat(f"KILL {pid_file}", "--allow-tools")

    killer.join(5)
    assert result.code == 0, result.err
    crashed, after = env.brain.results
    assert crashed.is_error
    assert crashed.text == ("Error: the MCP server 'files' stopped while running wait_to_be_killed; the call did not "
                            "complete and was not retried.")
    assert not after.is_error and after.text == "contents of after-the-crash.txt"
    notices = [line["message"] for line in lines if line["type"] == "notice"]
    assert any("stopped during a call to wait_to_be_killed" in n for n in notices)
    assert any("had stopped and was restarted" in n for n in notices)
    log = (env.cli.home / "logs" / "mcp" / "files.log").read_text()
    assert log.count("test server starting") == 3  # by `mcp add` to list the tools; by the chat, killed; restarted
    assert children_running() == []  # the command stopped the restarted server on its way out
    session = next(line for line in result.err.splitlines() if line.startswith("session: ")).split()[1]

    again = env.run("chat", "--jsonl", "-s", session, "--allow-tools", "READ notes")  # the next turn works
    assert again.code == 0, again.err
    assert env.brain.results[-1].text == "contents of notes.txt"
    assert children_running() == []


def children_running() -> list[int]:
    """Process ids of test MCP servers whose parent is this process (none once every command closed)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if b"tests.mcp.server" in cmdline and ppid == os.getpid():
            found.append(int(entry.name))
    return found


def _kill_when_written(pid_file: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if pid_file.exists() and pid_file.read_text().strip():
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
            return
        time.sleep(0.05)


def test_as_real_processes_the_chat_command_leaves_no_server_running(env: Env, tmp_path: Path) -> None:
    marker = f"mark-{os.getpid()}-{time.monotonic_ns()}"
    added = env.cli.run("mcp", "add", "files", "--", sys.executable, "-m", "tests.mcp.server", marker)
    assert added.code == 0, added.err
    assert env.cli.run("mcp", "permission", "files", "read_file", "allow").code == 0
    chat = env.cli.run("chat", "--jsonl", "-p", "anthropic", "-m", MODEL, "READ notes")
    assert chat.code == 0, chat.err
    assert env.brain.results[-1].text == "contents of notes.txt"
    assert _processes_with(marker) == []  # the command stopped its server before exiting: no orphan


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found
