"""MCP tasks (spec 2025-11-25) against a real SDK server serving them (tests/mcp/tasks_extension.py): a tool
callable only as a task is offered, called task-augmented, polled and its result fetched; its status messages are
progress; a failed task is a tool error; Stop and the time limit send tasks/cancel. Through the CLI and the hub."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from data.mcp.hub import McpHub
from domain.mcp import McpServer, McpTransport
from tests.mcp.cli_env import Env, cli_env
from tests.mcp.helpers import MemorySecrets, log_once
from tests.mcp.test_protocol_e2e import KEY, MODEL, ProtocolBrain


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env[ProtocolBrain]]:
    with cli_env(tmp_path, ProtocolBrain(), key=KEY, model=MODEL, chat_flags=("--allow-tools",)) as e:
        added = e.run("mcp", "add", "proto", "--", sys.executable, "-m", "tests.mcp.protocol_server")
        assert added.code == 0, added.err
        yield e


def test_a_tool_callable_only_as_a_task_is_offered_and_its_result_reaches_the_model(env: Env) -> None:
    tools = env.run("mcp", "tools", "proto")
    assert tools.code == 0, tools.err
    [row] = [line for line in tools.out.splitlines() if line.startswith("task_only ")]
    assert "ask (as a task)" in row
    [row] = [line for line in tools.out.splitlines() if line.startswith("either_way ")]
    assert "ask (as a task if the server runs them)" in row  # its optional task support, stored with the server

    result, lines = env.chat("CALL task_only")

    assert result.code == 0, result.err
    assert "proto__task_only" in env.brain.offered[0]
    [outcome] = env.brain.results
    assert (outcome.text, outcome.is_error) == ("ran as a task", False)  # the server refuses it as a plain call
    assert "response_complete" in [line["type"] for line in lines]


def test_a_tasks_status_messages_come_as_progress_before_its_result(env: Env) -> None:
    result, lines = env.chat('CALL slow_task {"steps": 3, "pause": 0.3}')

    assert result.code == 0, result.err
    progress = [line for line in lines if line["type"] == "progress"]
    assert [p["message"] for p in progress] == ["step 1 of 3", "step 2 of 3", "step 3 of 3"]
    assert {p["name"] for p in progress} == {"proto__slow_task"}
    assert [p["progress"] for p in progress] == [1, 2, 3] and {p["total"] for p in progress} == {None}
    kinds = [line["type"] for line in lines]
    assert kinds.index("tool_call") < kinds.index("progress") < kinds.index("tool_result")
    assert env.brain.results[-1].text == "task done after 3 steps"

    plain = env.run("chat", "-p", "anthropic", "-m", MODEL, "--allow-tools",
                    'CALL slow_task {"steps": 2, "pause": 0.3}')
    assert plain.code == 0, plain.err
    assert "[tool proto__slow_task: step 1 of 2 (1)]" in plain.err
    assert "[tool proto__slow_task: step 2 of 2 (2)]" in plain.err


def test_a_failed_task_is_a_tool_error_saying_why(env: Env) -> None:
    result, _ = env.chat("CALL failing_task")

    assert result.code == 0, result.err
    outcome = env.brain.results[-1]
    assert outcome.is_error
    assert outcome.text == ("Error: failing_task on the MCP server 'proto' failed (task task-1): Error executing tool "
                            "failing_task: the disk is full")


def test_the_time_limit_cancels_a_task_with_tasks_cancel_and_the_command_ends_promptly(env: Env) -> None:
    added = env.run("mcp", "add", "limited", "--timeout", "2", "--", sys.executable, "-m",
                    "tests.mcp.protocol_server")
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
    log = env.cli.home / "logs" / "mcp" / "limited.log"
    assert "tasks/cancel task-1 (working)" in log.read_text()  # the server was told, before the command ended


@pytest.fixture()
def hub(tmp_path: Path) -> Iterator[McpHub]:
    h = McpHub(MemorySecrets(), tmp_path / "logs")
    yield h
    h.close()


async def _listed(hub: McpHub, *flags: str) -> McpServer:
    """The protocol server with the tools it lists (their task support), as `mcp add` then `mcp tools` store it."""
    server = McpServer("proto", McpTransport.STDIO, command=sys.executable,
                       args=("-m", "tests.mcp.protocol_server", *flags))
    return replace(server, tools=tuple(await hub.list_tools(server)))


async def test_stopping_a_running_task_sends_tasks_cancel(hub: McpHub) -> None:
    server = await _listed(hub)
    working = asyncio.Event()
    call = asyncio.create_task(hub.call_tool(server, "slow_task", {"steps": 2, "pause": 60},
                                             lambda *_: working.set()))
    await asyncio.wait_for(working.wait(), 10)  # its first status message came: the task runs

    call.cancel()  # Stop

    with pytest.raises(asyncio.CancelledError):
        await call
    await log_once(hub.log_path("proto"), lambda text: "tasks/cancel task-1 (working)" in text)
    after = await hub.call_tool(server, "task_only", {})
    assert (after.output, after.is_error) == ("ran as a task", False)


async def test_a_status_notification_ends_the_wait_for_the_next_poll(hub: McpHub) -> None:
    server = await _listed(hub)  # told_task's server suggests polling once a minute

    outcome = await asyncio.wait_for(hub.call_tool(server, "told_task", {"pause": 0.2}), 10)

    assert (outcome.output, outcome.is_error) == ("told when done", False)  # notifications/tasks/status told it


async def test_a_task_only_tool_of_a_server_that_does_not_declare_tasks_is_not_sent(hub: McpHub) -> None:
    server = await _listed(hub, "--undeclared-tasks")

    outcome = await hub.call_tool(server, "task_only", {})

    assert outcome.is_error
    assert outcome.output == ("Error: task_only on the MCP server 'proto' runs only as a task, but the server does "
                              "not declare tasks for tools/call")


async def test_a_tool_whose_task_support_is_optional_runs_as_a_task_where_the_server_runs_tasks(hub: McpHub) -> None:
    declaring = await _listed(hub)
    [spec] = [t for t in declaring.tools if t.name == "either_way"]
    assert spec.task_optional and not spec.task_required

    outcome = await hub.call_tool(declaring, "either_way", {})

    assert (outcome.output, outcome.is_error) == ("ran as a task", False)
    plain = McpServer("plain", McpTransport.STDIO, command=sys.executable,  # a server that does not declare tasks
                      args=("-m", "tests.mcp.protocol_server", "--undeclared-tasks"))
    plain = replace(plain, tools=tuple(await hub.list_tools(plain)))
    outcome = await hub.call_tool(plain, "either_way", {})
    assert (outcome.output, outcome.is_error) == ("ran as a plain call", False)


async def test_a_task_the_server_cancelled_is_a_tool_error_saying_so(hub: McpHub) -> None:
    server = await _listed(hub)

    outcome = await hub.call_tool(server, "abandoned_task", {})

    assert outcome.is_error
    assert outcome.output == ("Error: abandoned_task on the MCP server 'proto' was cancelled by the server (task "
                              "task-1): the operator stopped it")
