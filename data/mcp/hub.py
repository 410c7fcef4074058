"""McpHub: the McpConnector owning one asyncio loop in a background thread, on which every server runs."""

from __future__ import annotations

import asyncio
import atexit
import logging
import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from mcp import ClientSession
from mcp.shared.exceptions import MCPError

from data.mcp.connection import Connection
from data.mcp.hub_catalog import HubCatalog, ResourceChanges
from data.mcp.hub_support import connection_closed, launch, on_loop, reason, run_forever, session_gone
from data.mcp.oauth_redirect import SIGN_IN_TIMEOUT_S, ShowSignIn
from data.mcp.requests import ServerRequests
from data.mcp.results import StoreImage, outcome_of
from data.mcp.tasks import TaskError, retention_ms
from domain.mcp import McpSecretStore, McpServer, McpServerError, McpToolSpec
from domain.mcp_interaction import McpSampler, McpUser
from domain.provider_ports import ProgressReport, ToolOutcome

log = logging.getLogger(__name__)
T = TypeVar("T")

START_TIMEOUT_S = 30.0
PING_TIMEOUT_S = 10.0
ToolsChanged = Callable[[str, list[McpToolSpec]], None]


class McpHub(HubCatalog):
    """Servers start on first use and keep running; a server that died is restarted once (the user is told) and a
    call in flight when it died returns an error, never retried. Calls time out, and cancelling the awaiting task
    (Stop) cancels the call. The loop runs in its own daemon thread, so a hung or chatty server never blocks the
    caller's loop or the GUI; close() stops every server (also at interpreter exit)."""

    def __init__(self, secrets: McpSecretStore, log_dir: Path, *, on_tools_changed: ToolsChanged | None = None,
                 start_timeout_s: float = START_TIMEOUT_S, store_image: StoreImage | None = None,
                 user: McpUser | None = None, sampler: McpSampler | None = None,
                 show_sign_in: ShowSignIn | None = None,
                 remember_sampling: Callable[[str], None] | None = None) -> None:
        self._secrets = secrets
        self._remember_sampling = remember_sampling  # the user allowed a server's sampling always: stored there
        self._show_sign_in = show_sign_in  # where an OAuth sign-in's URL is shown (None: a sign-in is an error)
        self._user, self._sampler = user, sampler  # who answers the servers' questions and sampling requests
        self._store_image = store_image  # images in results become attachments (None: described in the text)
        self._log_dir = log_dir
        self._on_tools_changed = on_tools_changed
        self._start_timeout = start_timeout_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._guard = threading.Lock()
        self._connections: dict[str, Connection] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._failures: dict[str, int] = {}  # crashes since the last successful call, per server
        self._closed = False
        self.resource_changes = ResourceChanges()  # resources subscribed to whose server said they changed
        self._subscribed = {}

    def log_path(self, server: str) -> str:
        """The file a stdio server's stderr is appended to."""
        return str(self._log_dir / f"{server}.log")

    async def list_tools(self, server: McpServer) -> Sequence[McpToolSpec]:
        """Starts the server if needed and lists its tools (McpServerError when it cannot be started)."""
        return await self._submit(self._list, server)

    async def call_tool(self, server: McpServer, tool: str, arguments: Mapping[str, Any],
                        progress: ProgressReport | None = None) -> ToolOutcome:
        """Calls a tool; a failure of any kind comes back as an error outcome for the model. The server's progress
        notifications go to `progress` on the caller's loop."""
        report = on_loop(asyncio.get_running_loop(), progress) if progress is not None else None
        try:
            return await self._submit(self._call, server, tool, dict(arguments), report)
        except McpServerError as err:
            return ToolOutcome(f"Error: {err}", is_error=True)

    async def roots_changed(self, server: McpServer) -> None:
        """Tells the server, when it runs, that its roots changed (it lists them again); a stopped one gets the new
        roots when it starts."""
        await self._submit(self._roots_changed, server)

    async def _roots_changed(self, server: McpServer) -> None:
        current = self._connections.get(server.name)
        if current is not None and not current.closed and current.server.roots != server.roots:
            await self._notify_roots(current, server)

    async def _notify_roots(self, connection: Connection, server: McpServer) -> None:
        try:
            await connection.set_roots(server)
        except Exception as err:  # a server that cannot be told lists them on its next roots/list anyway
            log.warning("Could not tell %s that its roots changed: %s", server.name, err)

    def running(self) -> list[str]:
        """Names of the servers running now."""
        return [name for name, c in self._connections.items() if not c.closed]

    def close(self) -> None:
        """Stops every server and the loop; safe to call twice and from any thread but the hub's own."""
        with self._guard:
            loop, thread, self._closed = self._loop, self._thread, True
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._stop_all(), loop).result(timeout=20)
        except Exception as exc:
            log.warning("Stopping the MCP servers failed: %s", exc)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)

    async def _submit(self, work: Callable[..., Coroutine[Any, Any, T]], *args: Any) -> T:
        """Runs `work(*args)` on the hub's loop and awaits it from the caller's loop; cancelling the caller cancels
        it there."""
        loop = self._ensure_loop()
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work(*args), loop))

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._guard:
            if self._closed:
                raise McpServerError("The MCP servers are shut down.")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=run_forever, args=(loop,), name="mcp-hub", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
                atexit.register(self.close)
            return self._loop

    async def _list(self, server: McpServer) -> list[McpToolSpec]:
        self._failures[server.name] = 0  # the user asked for it: a server that stopped twice may start again
        connection, _ = await self._connection(server)
        try:
            return await asyncio.wait_for(connection.list_tools(), server.timeout_s)
        except TimeoutError:
            raise McpServerError(f"The MCP server {server.name!r} did not list its tools within "
                                 f"{server.timeout_s:g} s.") from None
        except (MCPError, ConnectionError) as err:
            raise McpServerError(f"The MCP server {server.name!r} could not list its tools: {err}") from None

    async def _ask(self, server: McpServer, what: str, request: Callable[[ClientSession], Coroutine[Any, Any, T]]) -> T:
        """Runs one request on the server's session (started if needed), within its time limit; McpServerError
        says what could not be done and why."""
        connection, _ = await self._connection(server)
        try:
            return await asyncio.wait_for(request(connection.live()), server.timeout_s)
        except TimeoutError:
            raise McpServerError(f"The MCP server {server.name!r} did not {what} within {server.timeout_s:g} s.") \
                from None
        except (MCPError, ConnectionError, OSError) as err:
            raise McpServerError(f"The MCP server {server.name!r} could not {what}: {err}") from None

    async def _call(self, server: McpServer, tool: str, arguments: dict[str, Any],
                    progress: ProgressReport | None, again: bool = True) -> ToolOutcome:
        connection, notice = await self._connection(server)
        spec = next((t for t in server.tools if t.name == tool), None)
        as_task = spec is not None and (spec.task_required or (spec.task_optional and connection.runs_tasks()))
        ttl_ms = retention_ms(server.timeout_s) if as_task else None
        try:
            result = await asyncio.wait_for(connection.call(tool, arguments, progress, ttl_ms), server.timeout_s)
        except TaskError as err:
            return ToolOutcome(f"Error: {tool} on the MCP server {server.name!r} {err}", is_error=True, notice=notice)
        except TimeoutError:
            return ToolOutcome(f"Error: {tool} on the MCP server {server.name!r} did not answer within "
                               f"{server.timeout_s:g} s; it was cancelled.", is_error=True, notice=notice)
        except (MCPError, ConnectionError, OSError) as err:
            if again and server.url and session_gone(err):  # HTTP 404: the server did not run it; a new session
                await connection.stop()  # (e.g. a scope step-up signed in as a new client, whose session this is not)
                return await self._call(server, tool, arguments, progress, again=False)
            if connection.closed or connection_closed(err):
                return await self._crashed(server, tool, connection)
            return ToolOutcome(f"Error: {tool} on the MCP server {server.name!r} failed: {err}", is_error=True,
                               notice=notice)
        except Exception as err:  # e.g. a result breaking its own output schema: the model reads why
            log.warning("MCP call %s on %s failed: %r", tool, server.name, err)
            return ToolOutcome(f"Error: {tool} on the MCP server {server.name!r} failed: {type(err).__name__}: "
                               f"{err}", is_error=True, notice=notice)
        self._failures[server.name] = 0
        outcome = outcome_of(result, self._store_image, tool=tool)
        return ToolOutcome(outcome.output, outcome.is_error, notice, outcome.attachments)

    async def _crashed(self, server: McpServer, tool: str, connection: Connection) -> ToolOutcome:
        self._failures[server.name] = self._failures.get(server.name, 0) + 1
        await connection.stop()
        where = f" Its log: {self.log_path(server.name)}." if server.command else ""
        return ToolOutcome(
            f"Error: the MCP server {server.name!r} stopped while running {tool}; the call did not complete "
            "and was not retried.", is_error=True,
            notice=f"The MCP server {server.name!r} stopped during a call to {tool}; it is restarted on its next "
                   f"use.{where}")

    async def _connection(self, server: McpServer) -> tuple[Connection, str | None]:
        """The running connection of the server (started, or restarted once after a crash), and a notice for the
        user when it was restarted."""
        lock = self._locks.setdefault(server.name, asyncio.Lock())
        async with lock:
            current = self._connections.get(server.name)
            if current is not None and launch(current.server) != launch(server):  # edited: start it afresh
                await current.stop()
                current = None
            if current is not None and not current.closed:
                if current.server.roots != server.roots:
                    await self._notify_roots(current, server)
                current.adopt(server)  # e.g. its sampling rule, changed since it started
                try:
                    await current.ping(min(PING_TIMEOUT_S, server.timeout_s))
                    return current, None
                except Exception:
                    self._failures[server.name] = self._failures.get(server.name, 0) + 1
                    await current.stop()
            failures = self._failures.get(server.name, 0)
            if failures > 1:
                raise McpServerError(
                    f"The MCP server {server.name!r} stopped again after a restart; it is not restarted again "
                    f"automatically{self._log_hint(server)}. Check it, then list its tools to start it again.")
            connection = await self._start(server)
            if failures == 0:
                return connection, None
            return connection, f"The MCP server {server.name!r} had stopped and was restarted."

    async def _start(self, server: McpServer) -> Connection:
        secrets = self._secrets.get(server.name)
        tools_changed = self._on_tools_changed
        on_change = (lambda specs: tools_changed(server.name, specs)) if tools_changed else None
        requests = ServerRequests(server, self._user, self._sampler, self._remember_sampling)
        connection = Connection(server, secrets, Path(self.log_path(server.name)), on_change, requests,
                                self._show_sign_in, lambda uri: self.resource_changes.mark(server.name, uri))
        timeout = self._start_timeout
        if self._show_sign_in is not None and server.url:  # a person may have to sign in first
            timeout += SIGN_IN_TIMEOUT_S
        try:
            await connection.start(timeout)
        except TimeoutError:
            raise McpServerError(f"The MCP server {server.name!r} did not start within {timeout:g} s"
                                 f"{self._log_hint(server)}.") from None
        except Exception as err:
            raise McpServerError(f"The MCP server {server.name!r} could not be started: {reason(err)}"
                                 f"{self._log_hint(server)}.") from None
        self._connections[server.name] = connection
        await self._subscribe_again(server, connection.live())
        await self._relist_on_connect(server, connection)
        return connection

    async def _relist_on_connect(self, server: McpServer, connection: Connection) -> None:
        """Tools are listed on every connect: a list that changed since it was stored is reported (the next
        request offers it)."""
        if self._on_tools_changed is None:
            return
        try:
            specs = await asyncio.wait_for(connection.list_tools(), min(PING_TIMEOUT_S, server.timeout_s))
        except Exception as err:  # the stored list stays; the call goes on
            log.warning("Could not list the tools of %s on connect: %s", server.name, err)
            return
        if tuple(specs) != server.tools:
            self._on_tools_changed(server.name, specs)

    def _log_hint(self, server: McpServer) -> str:
        return f" (its log: {self.log_path(server.name)})" if server.command else ""

    async def _stop_all(self) -> None:
        await asyncio.gather(*(c.stop() for c in self._connections.values()), return_exceptions=True)
        self._connections.clear()
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in others:  # a start still in flight (a sign-in waiting for the browser): ended, its port closed
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
