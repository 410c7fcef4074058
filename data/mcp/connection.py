"""One running MCP server: its transport and ClientSession held open by one task on the hub's loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.session import IncomingMessage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

from data.mcp import process_group
from data.mcp.oauth import oauth_for
from data.mcp.oauth_redirect import ShowSignIn
from data.mcp.process_group import LOG_MAX_BYTES, CappedLog, end_groups, recording
from data.mcp.requests import ServerRequests
from data.mcp.tasks import TaskWatch, call_as_task, tasks_supported
from domain.mcp import McpServer, McpServerSecrets, McpToolSpec, McpTransport
from domain.provider_ports import ProgressReport

log = logging.getLogger(__name__)

ToolsChanged = Callable[[list[McpToolSpec]], None]


class Connection:
    """Starts a server (stdio: a child process whose stderr goes to `log_path`; HTTP: a Streamable HTTP session),
    keeps it open until stop(), and tells `on_tools_changed` the new list after `notifications/tools/list_changed`."""

    def __init__(self, server: McpServer, secrets: McpServerSecrets, log_path: Path,
                 on_tools_changed: ToolsChanged | None = None, requests: ServerRequests | None = None,
                 show_sign_in: ShowSignIn | None = None,
                 on_resource_updated: Callable[[str], None] | None = None) -> None:
        self.server = server
        self._on_resource_updated = on_resource_updated  # notifications/resources/updated: the resource's URI
        self._show_sign_in = show_sign_in  # an HTTP server answering 401: the sign-in URL goes there (None: an error)
        self._requests = requests or ServerRequests(server, None, None)
        self._secrets = secrets
        self._log_path = log_path
        self._on_tools_changed = on_tools_changed
        self.session: ClientSession | None = None
        self._outbound: JSONRPCDispatcher[Any] | None = None
        self._tasks = TaskWatch()  # notifications/tasks/status wake the poll of their task
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._pids: list[int] = []  # the stdio server's pid: its process group is ended when the connection closes
        self.closed = False

    async def start(self, timeout: float) -> None:
        """Starts the server and completes the handshake; raises with the reason when it cannot within `timeout`."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._serve(ready), name=f"mcp-{self.server.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), timeout)
        except BaseException:
            await self.stop()
            if ready.done() and not ready.cancelled():
                ready.exception()  # the cancelled start's own error: retrieved, the caller's is the one raised
            raise

    async def list_tools(self) -> list[McpToolSpec]:
        """Every tool the server lists (all pages)."""
        session = self._live()
        specs: list[McpToolSpec] = []
        cursor: str | None = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            result = await session.list_tools(params=params)
            specs += [_spec(t) for t in result.tools]
            cursor = result.next_cursor
            if not cursor:
                return specs

    async def call(self, tool: str, arguments: dict[str, Any], report: ProgressReport | None = None,
                   task_ttl_ms: int | None = None) -> types.CallToolResult:
        """Calls a tool (raises MCPError for a protocol error or a closed connection); with `report`, the call
        asks for progress notifications and each goes there. With `task_ttl_ms`, the tool runs as a task (its
        status messages go to `report`; TaskError when it ends without a result)."""
        if task_ttl_ms is not None:
            if self._outbound is None:
                raise ConnectionError(f"the MCP server {self.server.name!r} is not running")
            return await call_as_task(self._live(), self._outbound, self._tasks, tool, arguments, report,
                                      task_ttl_ms)
        if report is None:
            return await self._live().call_tool(tool, arguments)

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            report(progress, total, message)

        return await self._live().call_tool(tool, arguments, progress_callback=on_progress)

    async def ping(self, timeout: float) -> None:
        """Raises when the server no longer answers (its process died, its session ended)."""
        await asyncio.wait_for(self._live().send_ping(), timeout)

    async def stop(self) -> None:
        """Closes the session and stops the server process (the SDK closes its input, then ends its tree), then ends
        whatever is left of its process group (a child a tool spawned); a start that never completed is cancelled
        and waited for, so its process is ended before the loop stops."""
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            if self.session is None:  # still starting (a server that hangs on start): nothing to close gracefully
                task.cancel()
            try:
                await asyncio.wait_for(asyncio.shield(task), 10)
            except TimeoutError:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(task, 10)
            except BaseException:
                pass
        end_groups(self._pids)
        self.closed = True

    def adopt(self, server: McpServer) -> None:
        """The server's latest configuration answers its requests from now on (its sampling rule, its roots)."""
        self.server = server
        self._requests.use(server)

    async def set_roots(self, server: McpServer) -> None:
        """Adopts `server`, whose roots changed: the server is sent notifications/roots/list_changed."""
        self.adopt(server)
        await self._live().send_notification(types.RootsListChangedNotification())

    def runs_tasks(self) -> bool:
        """Whether the server declared task-augmented tools/call (then a tool whose task support is optional is
        called as a task: its status messages, and tasks/cancel on Stop)."""
        return self.session is not None and not self.closed and tasks_supported(self.session)

    def live(self) -> ClientSession:
        """The open session (ConnectionError when the server is not running)."""
        return self._live()

    def _live(self) -> ClientSession:
        if self.session is None or self.closed:
            raise ConnectionError(f"the MCP server {self.server.name!r} is not running")
        return self.session

    async def _serve(self, ready: asyncio.Future[None]) -> None:
        try:
            async with AsyncExitStack() as stack:
                if self.server.transport is McpTransport.STDIO:
                    errlog = CappedLog(self._log_path, LOG_MAX_BYTES)
                    stack.callback(errlog.close_writer)
                    params = StdioServerParameters(command=self.server.command or "", args=list(self.server.args),
                                                   env=dict(self._secrets.env) or None)
                    process_group.install()
                    with recording() as self._pids:
                        read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog.writer))
                    errlog.close_writer()  # the server holds its own copy
                else:
                    headers = dict(self._secrets.headers)
                    given = any(k.lower() == "authorization" for k in headers)  # the user's own token: no OAuth
                    auth = None if given else oauth_for(self.server, self._show_sign_in)
                    client = await stack.enter_async_context(
                        create_mcp_http_client(headers=headers or None, auth=auth))
                    read, write = await stack.enter_async_context(
                        streamable_http_client(self.server.url or "", http_client=client))
                answers = self._requests
                self._outbound = JSONRPCDispatcher(read, write)  # the session's own; task requests go through it
                session = await stack.enter_async_context(ClientSession(
                    dispatcher=self._outbound, message_handler=self._on_message, elicitation_callback=answers.elicit,
                    sampling_callback=answers.sample, list_roots_callback=answers.roots,
                    notification_bindings=[self._tasks.binding()]))
                await session.initialize()
                self.session = session
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else ConnectionError(str(exc)))
            elif not isinstance(exc, asyncio.CancelledError):
                log.warning("MCP server %s ended: %s", self.server.name, exc)
            if not isinstance(exc, Exception):
                raise
        finally:
            self.session = None
            self.closed = True
            end_groups(self._pids)

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification) and self._on_tools_changed is not None:
            asyncio.get_running_loop().create_task(self._relist())
        elif isinstance(message, types.ResourceUpdatedNotification) and self._on_resource_updated is not None:
            self._on_resource_updated(str(message.params.uri))
        elif isinstance(message, types.ElicitCompleteNotification):
            self._requests.completed(message.params.elicitation_id)
        elif isinstance(message, Exception):
            log.debug("MCP server %s: %s", self.server.name, message)

    async def _relist(self) -> None:
        try:
            specs = await self.list_tools()
        except Exception as exc:  # the list is refreshed on the next start instead
            log.warning("Could not list the tools of %s again: %s", self.server.name, exc)
            return
        if self._on_tools_changed is not None:
            self._on_tools_changed(specs)


def _spec(tool: types.Tool) -> McpToolSpec:
    schema = dict(tool.input_schema) if tool.input_schema else {"type": "object", "properties": {}}
    execution = tool.execution
    support = execution.task_support if execution is not None else None
    return McpToolSpec(tool.name, tool.description or "", schema, task_required=support == "required",
                       task_optional=support == "optional")
