"""MCP tasks (spec 2025-11-25) from the client's side: a tool callable only as a task is called task-augmented, the
task is polled with tasks/get at the interval the server asks, or at once when notifications/tasks/status says it
changed (its status message reported as progress), its result fetched with tasks/result (at once when the task needs
input: the server asks its questions there), and the task cancelled with tasks/cancel when the call is (Stop, the
time limit)."""

from __future__ import annotations

import asyncio
import logging

import mcp_types as types
from mcp import ClientSession
from mcp.client.extension import NotificationBinding
from mcp.shared.dispatcher import CallOptions, Outbound
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER

from domain.provider_ports import ProgressReport

log = logging.getLogger(__name__)

TERMINAL = ("completed", "failed", "cancelled")
DEFAULT_POLL_S = 1.0  # when the server suggests no interval
MIN_POLL_S = 0.05  # a server asking for less is polled this often
CANCEL_TIMEOUT_S = 2.0  # a server that does not answer tasks/cancel does not hold up the end of the call
KEEP_AFTER_TIMEOUT_MS = 60_000  # the task's retention asked for: the call's time limit and a minute to fetch it


class TaskError(Exception):
    """A task ended without a result to give (failed, cancelled by the server), or the server cannot run tasks; the
    message completes "TOOL on the MCP server NAME …"."""


class TaskWatch:
    """The notifications/tasks/status of one connection: each wakes the wait of its task for its next tasks/get (the
    notification is a hint: the task's state is what tasks/get answers)."""

    def __init__(self) -> None:
        self._changed: dict[str, asyncio.Event] = {}

    def binding(self) -> NotificationBinding[types.TaskStatusNotificationParams]:
        """What the session is given to deliver the notifications here."""
        return NotificationBinding(method="notifications/tasks/status", params_type=types.TaskStatusNotificationParams,
                                   handler=self._told)

    async def _told(self, params: types.TaskStatusNotificationParams) -> None:
        changed = self._changed.get(params.task_id)
        if changed is not None:
            changed.set()

    def watch(self, task_id: str) -> None:
        self._changed[task_id] = asyncio.Event()

    def forget(self, task_id: str) -> None:
        self._changed.pop(task_id, None)

    async def pause(self, task_id: str, seconds: float) -> None:
        """Waits `seconds`, or less when the server tells the task changed."""
        changed = self._changed.setdefault(task_id, asyncio.Event())
        try:
            await asyncio.wait_for(changed.wait(), seconds)
        except TimeoutError:
            pass
        changed.clear()


def tasks_supported(session: ClientSession) -> bool:
    """True when the server declared task-augmented tools/call (capabilities.tasks.requests.tools.call)."""
    capabilities = session.server_capabilities
    tasks = capabilities.tasks if capabilities is not None else None
    requests = tasks.requests if tasks is not None else None
    return requests is not None and requests.tools is not None and requests.tools.call is not None


def retention_ms(timeout_s: float) -> int:
    """The ttl asked for a task of a call limited to `timeout_s`."""
    return round(timeout_s * 1000) + KEEP_AFTER_TIMEOUT_MS


async def call_as_task(session: ClientSession, outbound: Outbound, watch: TaskWatch, tool: str,
                       arguments: dict[str, object], report: ProgressReport | None,
                       ttl_ms: int) -> types.CallToolResult:
    """Runs `tool` as a task and returns its result; cancelling the caller sends tasks/cancel for it."""
    if not tasks_supported(session):
        raise TaskError("runs only as a task, but the server does not declare tasks for tools/call")
    params = types.CallToolRequestParams(name=tool, arguments=arguments, task=types.TaskMetadata(ttl=ttl_ms))
    options: CallOptions = {}
    if session.protocol_version:
        options["headers"] = {MCP_PROTOCOL_VERSION_HEADER: session.protocol_version}
    # The SDK's call_tool checks the answer against CallToolResult, which a CreateTaskResult is not: the request
    # goes through the session's dispatcher, the answer is checked here.
    raw = await outbound.send_raw_request("tools/call", params.model_dump(by_alias=True, mode="json",
                                                                          exclude_none=True), options)
    task: types.Task = types.CreateTaskResult.model_validate(raw, by_name=False).task
    watch.watch(task.task_id)
    try:
        return await _follow(session, watch, task, report)
    except asyncio.CancelledError:
        await _cancel(session, task.task_id)
        raise
    finally:
        watch.forget(task.task_id)


async def _follow(session: ClientSession, watch: TaskWatch, task: types.Task,
                  report: ProgressReport | None) -> types.CallToolResult:
    reported: list[str] = []
    task = await _poll(session, watch, task, report, reported, ("input_required", *TERMINAL))
    if task.status == "cancelled":
        raise TaskError(f"was cancelled by the server (task {task.task_id})" +
                        (f": {task.status_message}" if task.status_message else ""))
    payload = types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task.task_id))
    if task.status == "input_required":
        # tasks/result is where the server asks its questions (on that request's stream over HTTP); it answers once
        # the task ended. Meanwhile tasks/get goes on, so the status messages after the answers are reported too.
        polling = asyncio.create_task(_poll(session, watch, task, report, reported, TERMINAL))
        try:
            return await session.send_request(payload, types.CallToolResult)
        finally:
            polling.cancel()
            await asyncio.gather(polling, return_exceptions=True)  # its end (or error) retrieved
    if task.status != "failed":
        return await session.send_request(payload, types.CallToolResult)
    try:  # a failed task's result is the tool's error result, or the request's error
        result = await session.send_request(payload, types.CallToolResult)
        said = " ".join(b.text for b in result.content if isinstance(b, types.TextContent))
    except MCPError as err:
        said = str(err)
    raise TaskError(f"failed (task {task.task_id}): {said or task.status_message or 'no reason given'}")


async def _poll(session: ClientSession, watch: TaskWatch, task: types.Task, report: ProgressReport | None,
                reported: list[str], until: tuple[str, ...]) -> types.Task:
    """tasks/get until the task's status is one of `until`; each new status message of the working task is
    reported (`reported`: the messages so far)."""
    while task.status not in until:
        await watch.pause(task.task_id, _interval(task))
        task = await session.send_request(
            types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task.task_id)), types.GetTaskResult)
        message = task.status_message
        if report is not None and message and task.status == "working" and message not in reported[-1:]:
            reported.append(message)
            report(len(reported), None, message)
    return task


def _interval(task: types.Task) -> float:
    if task.poll_interval is None:
        return DEFAULT_POLL_S
    return max(task.poll_interval / 1000, MIN_POLL_S)


async def _cancel(session: ClientSession, task_id: str) -> None:
    """tasks/cancel for a task its caller gave up on (a refusal, e.g. a task that just ended, is only logged)."""
    request = types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id))
    try:
        await asyncio.wait_for(session.send_request(request, types.CancelTaskResult), CANCEL_TIMEOUT_S)
    except Exception as err:
        log.info("tasks/cancel of %s was not accepted: %s", task_id, err)
