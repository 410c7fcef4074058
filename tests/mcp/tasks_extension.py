"""The tasks utility of MCP 2025-11-25 served by a real SDK server (MCPServer) through the SDK's own extension
machinery, with the spec's rules: a task-augmented tools/call answers a CreateTaskResult at once and runs the tool
in the background; tasks/get, tasks/result (blocks until the task ends) and tasks/cancel; a tool whose
execution.taskSupport is "required" called without `task` fails with -32601, a tool without task support called with
`task` too. A task that needs the user's answer is input_required until the client calls tasks/result; the question
(elicitation/create, with the related-task _meta) goes on that request, so over Streamable HTTP on its stream. Each
status change is also sent as notifications/tasks/status (unless the server is told not to); each tasks/cancel and
each question's answer is written to standard error (the client's log of the server)."""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata

POLL_INTERVAL_MS = 50
TERMINAL = ("completed", "failed", "cancelled")
RELATED_TASK = "io.modelcontextprotocol/related-task"
_current: contextvars.ContextVar[_Running | None] = contextvars.ContextVar("task", default=None)


def status(message: str) -> None:
    """Sets the status message of the task the calling tool runs in (nothing for a plain call)."""
    running = _current.get()
    if running is not None:
        running.update("working", message)


def in_task() -> bool:
    """Whether the calling tool runs in a task (a task-augmented tools/call), not as a plain call."""
    return _current.get() is not None


def give_up(message: str) -> None:
    """The server cancels the task the calling tool runs in (status "cancelled", no result)."""
    running = _current.get()
    if running is not None:
        running.update("cancelled", message)


async def ask(message: str, requested_schema: dict[str, Any]) -> types.ElicitResult:
    """Asks the user (a form) from the task the calling tool runs in: the task is input_required until the client
    calls tasks/result, whose request carries the question; then working again."""
    running = _current.get()
    if running is None:
        raise RuntimeError("ask() runs only in a task")
    running.update("input_required", message)
    ctx = await running.next_result_request()
    params = types.ElicitRequestFormParams.model_validate(
        {"message": message, "requestedSchema": requested_schema,
         "_meta": {RELATED_TASK: {"taskId": running.task.task_id}}})
    answer = await ctx.session.send_request(types.ElicitRequest(params=params), types.ElicitResult,
                                            metadata=ServerMessageMetadata(related_request_id=ctx.request_id))
    print(f"{running.task.task_id} answered: {answer.action} {answer.content or ''}", file=sys.stderr, flush=True)
    running.update("working", None)
    return answer


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class _Running:
    task: types.Task
    session: Any = None  # where notifications/tasks/status go (None: not sent)
    done: asyncio.Event = field(default_factory=asyncio.Event)
    result: types.CallToolResult | None = None
    job: asyncio.Task[None] | None = None
    sending: set[asyncio.Task[None]] = field(default_factory=set)
    waiting: list[ServerRequestContext[Any, Any]] = field(default_factory=list)  # tasks/result requests now open
    someone_waits: asyncio.Event = field(default_factory=asyncio.Event)

    async def next_result_request(self) -> ServerRequestContext[Any, Any]:
        """The latest open tasks/result request of this task, once there is one."""
        while not self.waiting:
            self.someone_waits.clear()
            await self.someone_waits.wait()
        return self.waiting[-1]

    def update(self, state: types.TaskStatus, message: str | None) -> None:
        self.task = self.task.model_copy(update={"status": state, "status_message": message,
                                                 "last_updated_at": _now()})
        if state in TERMINAL:
            self.done.set()
        if self.session is not None:
            params = types.TaskStatusNotificationParams.model_validate(self.task.model_dump())
            sent = asyncio.get_running_loop().create_task(
                self.session.send_notification(types.TaskStatusNotification(params=params)))
            self.sending.add(sent)
            sent.add_done_callback(self.sending.discard)


class Tasks(Extension):
    """Serves tasks for the tools of `support` (tool name -> "optional" or "required") of `server`."""

    identifier = "dev.palimpsest.test/tasks"

    def __init__(self, support: dict[str, str], poll_ms: dict[str, int] | None = None) -> None:
        self.support = support
        self.poll_ms = poll_ms or {}  # the poll interval suggested for a tool's tasks (default POLL_INTERVAL_MS)
        self.notify = True  # status changes are sent as notifications/tasks/status
        self.declare = True  # the capabilities declare tasks
        self.server: MCPServer | None = None
        self._tasks: dict[str, _Running] = {}
        self._ids = itertools.count(1)

    def methods(self) -> list[MethodBinding]:
        return [MethodBinding("tasks/get", types.GetTaskRequestParams, self._get),
                MethodBinding("tasks/result", types.GetTaskPayloadRequestParams, self._result),
                MethodBinding("tasks/cancel", types.CancelTaskRequestParams, self._cancel)]

    def capabilities(self) -> types.ServerTasksCapability:
        """What the server declares: task-augmented tools/call, and tasks/cancel."""
        return types.ServerTasksCapability(
            cancel=types.TasksCancelCapability(),
            requests=types.ServerTasksRequestsCapability(tools=types.TasksToolsCapability(
                call=types.TasksCallCapability())))

    async def intercept_tool_call(self, params: types.CallToolRequestParams, ctx: ServerRequestContext[Any, Any],
                                  call_next: CallNext) -> HandlerResult:
        if self.support.get(params.name) == "required":
            raise MCPError(code=types.METHOD_NOT_FOUND, message=f"Tool '{params.name}' requires task augmentation")
        return await call_next(ctx)

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """The middleware: a task-augmented tools/call becomes a task (before the SDK's tools/call result check,
        which knows no CreateTaskResult)."""
        params = ctx.params or {}
        if ctx.method != "tools/call" or params.get("task") is None:
            return await call_next(ctx)
        call = types.CallToolRequestParams.model_validate(params, by_name=False)
        if self.support.get(call.name) not in ("optional", "required"):
            raise MCPError(code=types.METHOD_NOT_FOUND, message=f"Tool '{call.name}' does not support tasks")
        ttl = call.task.ttl if call.task is not None else None
        created = _now()
        poll = self.poll_ms.get(call.name, POLL_INTERVAL_MS)
        running = _Running(types.Task(task_id=f"task-{next(self._ids)}", status="working", created_at=created,
                                      last_updated_at=created, ttl=ttl, poll_interval=poll),
                           ctx.session if self.notify else None)
        self._tasks[running.task.task_id] = running
        token = _current.set(running)
        try:
            running.job = asyncio.create_task(self._run(running, call))
        finally:
            _current.reset(token)
        return types.CreateTaskResult(task=running.task).model_dump(by_alias=True, mode="json", exclude_none=True)

    async def _run(self, running: _Running, call: types.CallToolRequestParams) -> None:
        assert self.server is not None
        try:
            result = await self.server.call_tool(call.name, call.arguments or {})
        except asyncio.CancelledError:
            return
        except Exception as err:  # the tool failed: a failed task whose result is the error
            result = types.CallToolResult(content=[types.TextContent(type="text", text=str(err))], is_error=True)
        assert isinstance(result, types.CallToolResult)
        if running.task.status in TERMINAL:  # the tool gave up: the task stays cancelled
            return
        running.result = result
        said = " ".join(b.text for b in result.content if isinstance(b, types.TextContent))
        running.update("failed" if result.is_error else "completed",
                       said if result.is_error else running.task.status_message)

    def _find(self, task_id: str) -> _Running:
        running = self._tasks.get(task_id)
        if running is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Failed to retrieve task: Task not found ({task_id})")
        return running

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: types.GetTaskRequestParams) -> HandlerResult:
        return types.GetTaskResult.model_validate(self._find(params.task_id).task.model_dump())

    async def _result(self, ctx: ServerRequestContext[Any, Any],
                      params: types.GetTaskPayloadRequestParams) -> HandlerResult:
        running = self._find(params.task_id)
        running.waiting.append(ctx)
        running.someone_waits.set()
        try:
            await running.done.wait()
        finally:
            running.waiting.remove(ctx)
        if running.result is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Task {params.task_id} was cancelled")
        meta = {"io.modelcontextprotocol/related-task": {"taskId": params.task_id}}
        return {**running.result.model_dump(by_alias=True, mode="json", exclude_none=True), "_meta": meta}

    async def _cancel(self, ctx: ServerRequestContext[Any, Any],
                      params: types.CancelTaskRequestParams) -> HandlerResult:
        running = self._find(params.task_id)
        print(f"tasks/cancel {params.task_id} ({running.task.status})", file=sys.stderr, flush=True)
        if running.task.status in TERMINAL:
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f"Cannot cancel task: already in terminal status '{running.task.status}'")
        if running.job is not None:
            running.job.cancel()
        running.update("cancelled", "The task was cancelled by request.")
        return types.CancelTaskResult.model_validate(running.task.model_dump())


def serve_tasks(server: MCPServer, tasks: Tasks) -> None:
    """Lets `server` run `tasks`: its capabilities declare tasks, its listed tools their task support."""
    tasks.server = server
    lowlevel = server._lowlevel_server
    declared = lowlevel.get_capabilities

    def get_capabilities(*args: Any, **kwargs: Any) -> types.ServerCapabilities:
        capabilities = declared(*args, **kwargs)
        return capabilities.model_copy(update={"tasks": tasks.capabilities()}) if tasks.declare else capabilities

    lowlevel.get_capabilities = get_capabilities  # type: ignore[method-assign]
