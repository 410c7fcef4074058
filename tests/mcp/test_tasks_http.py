"""MCP tasks over Streamable HTTP: the protocol server (tests/mcp/protocol_server.py) run with `--http`, its tools
callable only as tasks called through the CLI (tools/call with `task`, tasks/get, tasks/result with the session's id
and protocol-version headers), its status messages as progress, the time limit sending tasks/cancel, and a task's
question asked on the tasks/result request's own stream."""

from __future__ import annotations

import io
import re
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from app.cli.mcp_user import TerminalMcpUser
from data.mcp.hub import McpHub
from domain.mcp import McpServer, McpTransport
from tests.mcp.cli_env import Env, cli_env
from tests.mcp.helpers import MemorySecrets, http_server, log_once
from tests.mcp.test_protocol_e2e import KEY, MODEL, ProtocolBrain


@pytest.fixture()
def server_log(tmp_path: Path) -> Path:
    return tmp_path / "server.log"


@pytest.fixture()
def url(server_log: Path) -> Iterator[str]:
    with http_server("tests.mcp.protocol_server", server_log) as address:
        yield address


@pytest.fixture()
def env(tmp_path: Path, url: str) -> Iterator[Env[ProtocolBrain]]:
    with cli_env(tmp_path, ProtocolBrain(), key=KEY, model=MODEL, chat_flags=("--allow-tools",)) as e:
        added = e.run("mcp", "add", "proto", "--url", url)
        assert added.code == 0, added.err
        yield e


def test_a_tool_callable_only_as_a_task_runs_over_http_and_its_result_reaches_the_model(env: Env) -> None:
    tools = env.run("mcp", "tools", "proto")
    assert tools.code == 0, tools.err
    [row] = [line for line in tools.out.splitlines() if line.startswith("task_only ")]
    assert "ask (as a task)" in row

    result, lines = env.chat("CALL task_only")

    assert result.code == 0, result.err
    [outcome] = env.brain.results
    assert (outcome.text, outcome.is_error) == ("ran as a task", False)
    assert "response_complete" in [line["type"] for line in lines]

    result, lines = env.chat('CALL slow_task {"steps": 3, "pause": 0.3}')
    assert result.code == 0, result.err
    assert [p["message"] for p in lines if p["type"] == "progress"] == ["step 1 of 3", "step 2 of 3", "step 3 of 3"]
    assert env.brain.results[-1].text == "task done after 3 steps"


def test_the_time_limit_cancels_a_task_over_http_with_tasks_cancel(env: Env, url: str, server_log: Path) -> None:
    added = env.run("mcp", "add", "limited", "--url", url, "--timeout", "2")
    assert added.code == 0, added.err
    started = time.monotonic()
    quick, _ = env.chat('CALL limited:slow_task {"steps": 1, "pause": 0}')  # the same turn with a task that ends
    baseline = time.monotonic() - started
    assert quick.code == 0, quick.err
    assert env.brain.results[-1].text == "task done after 1 steps"
    started = time.monotonic()
    result, lines = env.chat('CALL limited:slow_task {"steps": 1, "pause": 60}')
    elapsed = time.monotonic() - started

    assert result.code == 0, result.err
    assert env.brain.results[-1].text == ("Error: slow_task on the MCP server 'limited' did not answer within 2 s; "
                                          "it was cancelled.")
    assert "response_complete" in [line["type"] for line in lines]
    assert elapsed - baseline < 2 + 5  # the 2 s limit, then the command ends (the task would take 60 s)
    assert re.search(r"tasks/cancel task-\d+ \(working\)", server_log.read_text())  # the server was told


class Tty(io.StringIO):
    """A terminal stand-in: text to read (or the prompts written), and isatty() true."""

    def isatty(self) -> bool:
        return True


async def test_a_tasks_question_comes_on_the_tasks_result_stream_and_its_answer_reaches_the_task(
    tmp_path: Path, url: str, server_log: Path
) -> None:
    stderr = Tty()
    hub = McpHub(MemorySecrets(), tmp_path / "logs", user=TerminalMcpUser(stdin=Tty("y\nAda\n"), stderr=stderr))
    try:
        server = McpServer("proto", McpTransport.HTTP, url=url, timeout_s=30)
        server = replace(server, tools=tuple(await hub.list_tools(server)))  # as `mcp tools` stores them
        outcome = await hub.call_tool(server, "asking_task", {})
    finally:
        hub.close()

    assert (outcome.output, outcome.is_error) == ("The account of Ada holds 3 invoices.", False)
    assert "The MCP server proto asks: Whose account is it?" in stderr.getvalue()
    await log_once(server_log, lambda text: re.search(r"task-\d+ answered: accept \{'name': 'Ada'\}", text) is not None)
