"""McpHub against the real test server (written with the SDK's server API) as a subprocess, over stdio and HTTP."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from data.mcp.hub import McpHub
from domain.mcp import McpServer, McpServerError, McpServerSecrets, McpToolSpec, McpTransport, ToolPermission
from tests.mcp.helpers import MemorySecrets, http_server, log_once, stdio_server
from tests.mcp.test_done_when import children_running

TOOLS = ["read_file", "big_file", "fail", "crash", "wait_to_be_killed", "hang", "picture", "auth_header", "chatty",
         "add_shout"]


@pytest.fixture()
def hub(tmp_path: Path) -> Iterator[McpHub]:
    h = McpHub(MemorySecrets(), tmp_path / "logs")
    yield h
    h.close()


async def test_stdio_server_lists_its_tools_with_their_schemas(hub: McpHub) -> None:
    tools = await hub.list_tools(stdio_server())
    assert [t.name for t in tools] == TOOLS
    read = tools[0]
    assert read.description.startswith("Read a text file")
    assert read.input_schema["required"] == ["path"]
    assert read.input_schema["properties"]["path"]["type"] == "string"


async def test_a_call_returns_the_text_and_the_server_keeps_running_for_the_next(hub: McpHub) -> None:
    server = stdio_server()
    first = await hub.call_tool(server, "read_file", {"path": "a.txt"})
    second = await hub.call_tool(server, "read_file", {"path": "b.txt"})
    assert (first.output, first.is_error, first.notice) == ("contents of a.txt", False, None)
    assert second.output == "contents of b.txt"
    assert hub.running() == ["files"]
    # stderr goes to the server's log
    await log_once(hub.log_path("files"),
                   lambda log: log.count("test server starting") == 1 and "read_file b.txt" in log)


async def test_a_tool_error_is_an_error_outcome_with_the_servers_message(hub: McpHub) -> None:
    outcome = await hub.call_tool(stdio_server(), "fail", {"reason": "disk full"})
    assert outcome.is_error
    assert outcome.output == "Error: Error executing tool fail: cannot do it: disk full"


async def test_an_image_becomes_a_one_line_description(hub: McpHub) -> None:
    outcome = await hub.call_tool(stdio_server(), "picture", {})
    assert (outcome.output, outcome.is_error) == ("[image: image/png, 68 bytes]", False)


async def test_a_chatty_server_answers_and_its_noise_goes_to_its_log(hub: McpHub) -> None:
    outcome = await hub.call_tool(stdio_server(), "chatty", {"megabytes": 3})
    assert (outcome.output, outcome.is_error) == ("said a lot", False)
    await log_once(hub.log_path("files"), lambda log: len(log) > 3_000_000)


async def test_a_server_that_never_answers_times_out_and_the_server_stays_usable(hub: McpHub) -> None:
    server = stdio_server(timeout_s=1.0)
    started = time.monotonic()
    outcome = await hub.call_tool(server, "hang", {})
    assert time.monotonic() - started < 10
    assert outcome.is_error
    assert outcome.output == "Error: hang on the MCP server 'files' did not answer within 1 s; it was cancelled."
    assert (await hub.call_tool(server, "read_file", {"path": "x"})).output == "contents of x"


async def test_cancelling_the_caller_cancels_the_call_without_blocking_its_loop(hub: McpHub) -> None:
    server = stdio_server()
    await hub.list_tools(server)
    call = asyncio.create_task(hub.call_tool(server, "hang", {}))
    ticks = 0
    for _ in range(10):  # the caller's loop keeps running while the call waits on the hub's thread
        await asyncio.sleep(0.02)
        ticks += 1
    assert _calls_in_flight(hub) == 1
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert ticks == 10
    for _ in range(50):  # the call's task on the hub's loop is cancelled too
        if _calls_in_flight(hub) == 0:
            break
        await asyncio.sleep(0.05)
    assert _calls_in_flight(hub) == 0
    assert (await hub.call_tool(server, "read_file", {"path": "y"})).output == "contents of y"


def _calls_in_flight(hub: McpHub) -> int:
    """Tasks running a call on the hub's own loop."""
    loop = hub._loop
    assert loop is not None

    async def count() -> int:
        return sum(1 for t in asyncio.all_tasks() if getattr(t.get_coro(), "__name__", "") == "_call")

    return asyncio.run_coroutine_threadsafe(count(), loop).result(5)


async def test_a_crash_mid_call_is_an_error_not_retried_then_one_restart_with_a_notice(hub: McpHub) -> None:
    server = stdio_server()
    crashed = await hub.call_tool(server, "crash", {})
    assert crashed.is_error
    assert crashed.output == ("Error: the MCP server 'files' stopped while running crash; the call did not complete "
                              "and was not retried.")
    assert crashed.notice is not None and hub.log_path("files") in crashed.notice
    after = await hub.call_tool(server, "read_file", {"path": "z"})
    assert (after.output, after.is_error) == ("contents of z", False)
    assert after.notice == "The MCP server 'files' had stopped and was restarted."
    # the crashing call ran once: it was not retried
    await log_once(hub.log_path("files"), lambda log: log.count("crashing now") == 1
                   and log.count("test server starting") == 2)


async def test_a_server_that_crashes_again_right_after_its_restart_is_not_restarted_again(hub: McpHub) -> None:
    server = stdio_server()
    await hub.call_tool(server, "crash", {})
    again = await hub.call_tool(server, "crash", {})  # restarted once, and crashed again
    assert again.is_error
    refused = await hub.call_tool(server, "read_file", {"path": "q"})
    assert refused.is_error and "stopped again after a restart; it is not restarted again" in refused.output
    assert (await hub.list_tools(server))[0].name == "read_file"  # the user asking for its tools starts it again


async def test_a_server_that_died_while_idle_is_restarted_before_the_next_call(hub: McpHub) -> None:
    server = stdio_server()
    await hub.call_tool(server, "read_file", {"path": "a"})
    pid_file = Path(hub.log_path("pid"))
    killer = asyncio.create_task(hub.call_tool(server, "wait_to_be_killed", {"pid_file": str(pid_file)}))
    for _ in range(200):
        if pid_file.exists() and pid_file.read_text():
            break
        await asyncio.sleep(0.05)
    killer.cancel()  # the call is withdrawn; then the process dies while nothing is in flight
    with pytest.raises(asyncio.CancelledError):
        await killer
    import os
    import signal

    os.kill(int(pid_file.read_text()), signal.SIGKILL)
    await asyncio.sleep(0.3)
    after = await hub.call_tool(server, "read_file", {"path": "b"})
    assert (after.output, after.is_error) == ("contents of b", False)
    assert after.notice == "The MCP server 'files' had stopped and was restarted."


async def test_a_command_that_does_not_exist_is_a_clear_error(hub: McpHub) -> None:
    server = McpServer("nope", McpTransport.STDIO, command="/nonexistent/mcp-server")
    with pytest.raises(McpServerError, match=r"'nope' could not be started: command not found"):
        await hub.list_tools(server)
    outcome = await hub.call_tool(server, "x", {})
    assert outcome.is_error and "could not be started" in outcome.output


async def test_a_tool_list_change_is_reported_with_the_new_list(tmp_path: Path) -> None:
    changes: list[tuple[str, list[McpToolSpec]]] = []
    seen = threading.Event()

    def changed(name: str, tools: list[McpToolSpec]) -> None:
        changes.append((name, tools))
        if any(t.name == "shout" for t in tools):
            seen.set()

    hub = McpHub(MemorySecrets(), tmp_path / "logs", on_tools_changed=changed)
    try:
        server = replace(stdio_server(), tools=tuple(await hub.list_tools(stdio_server())))
        assert (await hub.call_tool(server, "add_shout", {})).output == "added shout"
        assert await asyncio.get_running_loop().run_in_executor(None, seen.wait, 10)
    finally:
        hub.close()
    name, tools = changes[-1]
    assert name == "files" and [t.name for t in tools] == [*TOOLS, "shout"]


async def test_tools_are_listed_on_connect_and_a_stale_stored_list_is_reported(tmp_path: Path) -> None:
    changes: list[tuple[str, list[McpToolSpec]]] = []
    hub = McpHub(MemorySecrets(), tmp_path / "logs", on_tools_changed=lambda n, t: changes.append((n, t)))
    try:
        stale = replace(stdio_server(), tools=(McpToolSpec("read_file", "old", {"type": "object"}),))
        assert (await hub.call_tool(stale, "read_file", {"path": "a"})).output == "contents of a"
        [(name, tools)] = changes
        assert name == "files" and [t.name for t in tools] == TOOLS
        current = replace(stdio_server("other"), tools=tuple(tools))
        await hub.call_tool(current, "read_file", {"path": "a"})
        assert len(changes) == 1  # a list that did not change is not reported
    finally:
        hub.close()


async def test_environment_values_reach_the_server_process(tmp_path: Path) -> None:
    secrets = MemorySecrets()
    secrets.set("files", McpServerSecrets(env={"PALIMPSEST_TEST_MARK": "from-the-keychain"}))
    hub = McpHub(secrets, tmp_path / "logs")
    try:
        server = replace(stdio_server(), env_names=("PALIMPSEST_TEST_MARK",))
        outcome = await hub.call_tool(server, "read_file", {"path": "$PALIMPSEST_TEST_MARK"})
    finally:
        hub.close()
    assert outcome.output == "contents of from-the-keychain"


async def test_close_stops_every_server_it_started(tmp_path: Path) -> None:
    hub = McpHub(MemorySecrets(), tmp_path / "logs")
    await hub.call_tool(stdio_server("one"), "read_file", {"path": "a"})
    await hub.call_tool(stdio_server("two"), "read_file", {"path": "a"})
    assert len(children_running()) == 2
    hub.close()
    assert children_running() == []
    with pytest.raises(McpServerError, match="shut down"):
        await hub.list_tools(stdio_server())


async def test_streamable_http_server_lists_calls_and_returns_a_200_kb_result(hub: McpHub) -> None:
    with http_server() as url:
        server = McpServer("web", McpTransport.HTTP, url=url, timeout_s=20)
        assert [t.name for t in await hub.list_tools(server)] == TOOLS
        big = await hub.call_tool(server, "big_file", {"kilobytes": 200})
        failed = await hub.call_tool(server, "fail", {"reason": "over http"})
    assert not big.is_error and len(big.output) >= 200_000 and big.output.startswith("line 000000 ")
    assert failed.is_error and failed.output.endswith("cannot do it: over http")


async def test_an_http_server_that_is_down_is_a_clear_error(hub: McpHub) -> None:
    from tests.mcp.helpers import free_port

    server = McpServer("down", McpTransport.HTTP, url=f"http://127.0.0.1:{free_port()}/mcp")
    with pytest.raises(McpServerError, match=r"'down' could not be started"):
        await hub.list_tools(server)


async def test_header_values_from_the_keychain_reach_an_http_server(tmp_path: Path) -> None:
    secrets = MemorySecrets()
    secrets.set("web", McpServerSecrets(headers={"Authorization": "Bearer mcp-token-7f"}))
    hub = McpHub(secrets, tmp_path / "logs")
    try:
        with http_server() as url:
            server = McpServer("web", McpTransport.HTTP, url=url, header_names=("Authorization",), timeout_s=20)
            outcome = await hub.call_tool(server, "auth_header", {})
    finally:
        hub.close()
    assert outcome.output == "Bearer mcp-token-7f"


async def test_a_changed_rule_keeps_the_server_running_and_a_changed_command_restarts_it(hub: McpHub) -> None:
    server = stdio_server()
    await hub.call_tool(server, "read_file", {"path": "a"})
    allowed = replace(server, permissions={"read_file": ToolPermission.ALLOW}, timeout_s=5.0)
    assert (await hub.call_tool(allowed, "read_file", {"path": "b"})).notice is None
    await log_once(hub.log_path("files"), lambda log: log.count("test server starting") == 1)
    moved = replace(server, args=(*server.args, "--verbose"))
    assert (await hub.call_tool(moved, "read_file", {"path": "c"})).output == "contents of c"
    await log_once(hub.log_path("files"), lambda log: log.count("test server starting") == 2)
