"""A real MCP server (the SDK's MCPServer) for the protocol tests beyond plain calls: a screenshot tool returning an
image, a speaking tool returning a WAV clip, a slow tool reporting progress, tools callable only as tasks
(tests/mcp/tasks_extension.py; one asks a question mid-task), prompts with argument completion, resources, a tool
that elicits, one that samples and one that lists the client's roots. `python -m tests.mcp.protocol_server`, or
`--http PORT` for Streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import io
import sys
from typing import Any

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Audio, Image
from pydantic import BaseModel

from tests.mcp.tasks_extension import Tasks, ask, give_up, in_task, serve_tasks, status

LANGUAGES = ("python", "perl", "php", "rust")
TASKS = Tasks({"task_only": "required", "slow_task": "required", "failing_task": "required",
               "told_task": "required", "abandoned_task": "required",
               "asking_task": "required", "either_way": "optional"}, poll_ms={"told_task": 60_000})


class TasksServer(MCPServer):
    """Lists each tool of TASKS with its execution.taskSupport."""

    async def list_tools(self) -> list[Any]:
        tools = await super().list_tools()
        return [t.model_copy(update={"execution": types.ToolExecution(task_support=TASKS.support[t.name])})
                if t.name in TASKS.support else t for t in tools]


server = TasksServer("palimpsest-test-protocol", extensions=[TASKS], middleware=[TASKS])
serve_tasks(server, TASKS)


def _png(width: int, height: int) -> bytes:
    from PIL import Image as Pillow

    buffer = io.BytesIO()
    Pillow.new("RGB", (width, height), (40, 120, 200)).save(buffer, format="PNG")
    return buffer.getvalue()


@server.tool(structured_output=False)
def screenshot(width: int = 160, height: int = 120) -> list[Any]:
    """Takes a screenshot (a blue PNG of the size asked) and says what it shows."""
    return [f"A screenshot of {width}x{height} pixels.", Image(data=_png(width, height), format="png")]


def _wav(seconds: float) -> bytes:
    import wave

    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as clip:  # 16 kHz mono 16-bit silence
        clip.setnchannels(1)
        clip.setsampwidth(2)
        clip.setframerate(16_000)
        clip.writeframes(b"\x00\x00" * round(16_000 * seconds))
    return buffer.getvalue()


@server.tool(structured_output=False)
def say(seconds: float = 1.0) -> list[Any]:
    """Speaks (a WAV clip of silence as long as asked) and says what it returned."""
    return [f"{seconds} s of speech.", Audio(data=_wav(seconds), format="wav")]


@server.tool()
async def slow(steps: int = 3, pause: float = 0.2, ctx: Context | None = None) -> str:
    """Works in steps, reporting progress after each."""
    assert ctx is not None
    for step in range(1, steps + 1):
        await asyncio.sleep(pause)
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
    return f"done after {steps} steps"


@server.tool()
def task_only() -> str:
    """Runs only as a task."""
    return "ran as a task"


@server.tool()
async def slow_task(steps: int = 3, pause: float = 0.2) -> str:
    """Works in steps as a task, its status message saying how far it got."""
    for step in range(1, steps + 1):
        status(f"step {step} of {steps}")
        await asyncio.sleep(pause)
    return f"task done after {steps} steps"


@server.tool()
async def told_task(pause: float = 0.2) -> str:
    """A task whose server suggests polling once a minute: its end is told by notifications/tasks/status."""
    await asyncio.sleep(pause)
    return "told when done"


@server.tool()
def abandoned_task() -> str:
    """A task its server cancels."""
    give_up("the operator stopped it")
    return "never read"


@server.tool()
async def asking_task(pause: float = 0.5) -> str:
    """A task that needs the user's name half-way (input_required, the question asked on tasks/result), then works
    on for `pause` seconds."""
    status("looking up the account")
    answer = await ask("Whose account is it?", {"type": "object", "properties": {"name": {"type": "string"}},
                                                 "required": ["name"]})
    if answer.action != "accept" or not answer.content:
        return f"The user chose {answer.action}; nothing was looked up."
    status("reading the account")
    await asyncio.sleep(pause)
    return f"The account of {answer.content['name']} holds 3 invoices."


@server.tool()
def either_way() -> str:
    """Runs as a task or as a plain call (execution.taskSupport "optional"), and says which."""
    return "ran as a task" if in_task() else "ran as a plain call"


@server.tool()
def failing_task() -> str:
    """Fails, as a task."""
    raise ToolError("the disk is full")


@server.prompt()
def review(language: str, focus: str = "bugs") -> str:
    """Review code in a language, with a focus."""
    return f"Review this {language} code for {focus}."


@server.completion()
async def complete(ref: Any, argument: Any, context: Any) -> types.Completion | None:
    if isinstance(ref, types.PromptReference) and ref.name == "review" and argument.name == "language":
        return types.Completion(values=[x for x in LANGUAGES if x.startswith(argument.value)])
    return None


@server.resource("notes://today", name="today", description="Today's notes", mime_type="text/plain")
def today() -> str:
    return "Buy milk. Call Ada."


_live = {"text": "Version 1.", "subscribed": False}


@server.resource("notes://live", name="live", description="Notes that change", mime_type="text/plain")
def live() -> str:
    return str(_live["text"])


async def _subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
    _live["subscribed"] = params.uri == "notes://live" or bool(_live["subscribed"])
    return types.EmptyResult()


async def _unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    if params.uri == "notes://live":
        _live["subscribed"] = False
    return types.EmptyResult()


server._lowlevel_server.add_request_handler("resources/subscribe", types.SubscribeRequestParams, _subscribe)
server._lowlevel_server.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, _unsubscribe)


@server.tool()
async def edit_live(text: str, ctx: Context) -> str:
    """Changes notes://live; a subscribed client is sent notifications/resources/updated."""
    _live["text"] = text
    if _live["subscribed"]:
        await ctx.session.send_resource_updated("notes://live")
        return "changed; the subscriber was told"
    return "changed"


@server.tool()
def crash() -> str:
    """Ends the server's process at once (a crash)."""
    import os

    os._exit(3)


class Name(BaseModel):
    """The user's name."""

    name: str


@server.tool()
async def ask_name(ctx: Context) -> str:
    """Asks the user for their name (elicitation)."""
    answer = await ctx.elicit("What is your name?", Name)
    if answer.action == "accept" and answer.data is not None:
        return f"Hello, {answer.data.name}."
    return f"The user chose {answer.action}."


@server.tool()
async def connect_account(ctx: Context) -> str:
    """Asks the user to open an address (URL-mode elicitation), then says it is done."""
    answer = await ctx.elicit_url("Connect your example.com account.", "https://example.com/connect?session=s-1",
                                  "connect-1")
    if answer.action == "accept":
        await ctx.session.send_elicit_complete("connect-1", ctx.request_id)
    return f"The user chose {answer.action}."


_elsewhere: dict[str, Any] = {}  # connect_elsewhere's session and request id, for finish_connect


@server.tool()
async def connect_elsewhere(ctx: Context) -> str:
    """Asks the user to open an address (URL mode); the step is finished elsewhere (finish_connect) meanwhile."""
    _elsewhere.update(session=ctx.session, request_id=ctx.request_id)
    answer = await ctx.elicit_url("Connect on your phone.", "https://example.com/connect?session=s-2", "connect-2")
    return f"The user chose {answer.action}."


@server.tool()
async def finish_connect(ctx: Context) -> str:
    """Says connect_elsewhere's step is done (notifications/elicitation/complete) while its question is open."""
    if "session" not in _elsewhere:
        return "Nothing to finish."
    await _elsewhere["session"].send_elicit_complete("connect-2", _elsewhere["request_id"])
    return "Finished."


@server.tool()
async def summarize(text: str, ctx: Context) -> str:
    """Asks the client's model for a one-line summary (sampling)."""
    result = await ctx.session.create_message(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text=text))],
        max_tokens=50)
    content = result.content
    return f"summary: {content.text if isinstance(content, types.TextContent) else content}"


@server.tool()
async def roots(ctx: Context) -> str:
    """The folders the client lets this server use."""
    listed = await ctx.session.list_roots()
    return "\n".join(str(r.uri) for r in listed.roots) or "(no roots)"


_roots_seen: list[str] = []  # what roots/list answered after each notifications/roots/list_changed, one line each
_roots_changed = asyncio.Event()


async def _on_roots_changed(ctx: Any, params: Any) -> None:
    """The client said its roots changed: list them again, as a server should."""
    listed = await ctx.session.list_roots()
    _roots_seen.append(" ".join(str(r.uri) for r in listed.roots) or "(no roots)")
    _roots_changed.set()


server._lowlevel_server.add_notification_handler("notifications/roots/list_changed", types.NotificationParams,
                                                 _on_roots_changed)


@server.tool()
async def roots_changes(seen: int = 1) -> str:
    """Waits (up to 10 s) until `seen` roots/list_changed notifications came, then lists what each re-list found."""
    async with asyncio.timeout(10):
        while len(_roots_seen) < seen:
            _roots_changed.clear()
            await _roots_changed.wait()
    return "\n".join(_roots_seen)


if __name__ == "__main__":
    TASKS.notify = "--no-task-notifications" not in sys.argv
    TASKS.declare = "--undeclared-tasks" not in sys.argv
    if "--http" in sys.argv:
        server.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[sys.argv.index("--http") + 1]))
    else:
        server.run()
