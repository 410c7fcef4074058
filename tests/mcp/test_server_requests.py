"""A server's requests to the client, against the real protocol server (tests/mcp/protocol_server.py) through the
hub: a form answered on the terminal (or declined without one), sampling only after approval, the declared roots."""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from app.cli.mcp_user import TerminalMcpUser
from data.mcp.hub import McpHub
from domain.mcp import McpServer, McpTransport
from domain.mcp_interaction import SamplingEstimate, SamplingReply, SamplingRequest
from domain.services.mcp_sampler import ConversationSampler
from tests.mcp.helpers import MemorySecrets


class Tty(io.StringIO):
    """A terminal stand-in: text to read (or the prompts written), and isatty() true."""

    def isatty(self) -> bool:
        return True


class RecordingSampler:
    """An McpSampler that answers with a fixed text and records each request it ran."""

    def __init__(self) -> None:
        self.requests: list[SamplingRequest] = []

    async def sample(self, request: SamplingRequest) -> SamplingReply:
        self.requests.append(request)
        return SamplingReply("It is about a cat.", "claude-test")

    def estimate(self, request: SamplingRequest) -> SamplingEstimate | None:
        return SamplingEstimate("claude-test", 12, request.max_tokens, 0.00081)


SERVER = McpServer("proto", McpTransport.STDIO, command=sys.executable, args=("-m", "tests.mcp.protocol_server"),
                   timeout_s=30)


@pytest.fixture()
def logs(tmp_path: Path) -> Path:
    return tmp_path / "logs"


def _hub(logs: Path, answers: str | None, sampler: RecordingSampler | None = None) -> tuple[McpHub, io.StringIO]:
    """A hub whose user answers `answers` on a terminal (None: no terminal)."""
    stderr: io.StringIO = Tty() if answers is not None else io.StringIO()
    stdin: io.StringIO = Tty(answers) if answers is not None else io.StringIO("")
    return McpHub(MemorySecrets(), logs, user=TerminalMcpUser(stdin=stdin, stderr=stderr), sampler=sampler), stderr


@pytest.fixture()
def closing() -> Iterator[list[McpHub]]:
    hubs: list[McpHub] = []
    yield hubs
    for hub in hubs:
        hub.close()


@pytest.mark.parametrize(("answers", "expected"), [
    ("y\nAda\n", "Hello, Ada."),
    ("d\n", "The user chose decline."),
    ("c\n", "The user chose cancel."),
    ("y\n\n\n\n", "The user chose cancel."),  # a required field left empty three times
])
async def test_a_servers_form_is_asked_on_the_terminal_and_only_the_answer_is_sent(
    logs: Path, closing: list[McpHub], answers: str, expected: str
) -> None:
    hub, stderr = _hub(logs, answers)
    closing.append(hub)
    outcome = await hub.call_tool(SERVER, "ask_name", {})
    assert outcome.output == expected
    assert "The MCP server proto asks: What is your name?" in stderr.getvalue()


async def test_without_a_terminal_a_form_is_declined_and_the_user_told(logs: Path, closing: list[McpHub]) -> None:
    hub, stderr = _hub(logs, None)
    closing.append(hub)
    outcome = await hub.call_tool(SERVER, "ask_name", {})
    assert outcome.output == "The user chose decline."
    assert "declined without asking (no terminal): the MCP server proto asked: What is your name?" in stderr.getvalue()


async def test_sampling_runs_on_the_users_model_only_after_approval(logs: Path, closing: list[McpHub]) -> None:
    sampler = RecordingSampler()
    hub, stderr = _hub(logs, "y\n", sampler)
    closing.append(hub)
    outcome = await hub.call_tool(SERVER, "summarize", {"text": "The cat sat on the mat."})
    assert outcome.output == "summary: It is about a cat."
    [request] = sampler.requests
    assert request.messages == (("user", "The cat sat on the mat."),) and request.max_tokens == 50
    assert "The MCP server proto asks to use your model (up to 50 output tokens" in stderr.getvalue()
    assert "Estimated: claude-test: about 12 input + up to 50 output tokens, at most $0.0008\n" in stderr.getvalue()


async def test_sampling_allowed_always_is_remembered_and_later_requests_run_without_asking(
    logs: Path, closing: list[McpHub]
) -> None:
    sampler, stored = RecordingSampler(), {SERVER.name: SERVER}  # the repository, as the container keeps it

    def remember(name: str) -> None:
        stored[name] = replace(stored[name], sampling_always=True)

    stderr, stdin = Tty(), Tty("a\n")  # one answer: a second question would read nothing and refuse
    hub = McpHub(MemorySecrets(), logs, user=TerminalMcpUser(stdin=stdin, stderr=stderr), sampler=sampler,
                 remember_sampling=remember)
    closing.append(hub)
    first = await hub.call_tool(stored["proto"], "summarize", {"text": "one"})
    assert stored["proto"].sampling_always
    second = await hub.call_tool(stored["proto"], "summarize", {"text": "two"})
    assert (first.output, second.output) == ("summary: It is about a cat.", "summary: It is about a cat.")
    assert [r.messages for r in sampler.requests] == [(("user", "one"),), (("user", "two"),)]
    assert stderr.getvalue().count("Run it?") == 1

    revoked = replace(SERVER, sampling_always=False)  # `mcp sampling proto ask`, seen by the running connection
    third = await hub.call_tool(revoked, "summarize", {"text": "three"})
    assert third.is_error and "declined" in third.output and stderr.getvalue().count("Run it?") == 2


@pytest.mark.parametrize("answers", ["n\n", None])
async def test_sampling_refused_on_the_terminal_or_without_one_never_reaches_the_model(
    logs: Path, closing: list[McpHub], answers: str | None
) -> None:
    sampler = RecordingSampler()
    hub, stderr = _hub(logs, answers, sampler)
    closing.append(hub)
    outcome = await hub.call_tool(SERVER, "summarize", {"text": "secret"})
    assert outcome.is_error and "declined to run this request on their model" in outcome.output
    assert sampler.requests == []
    if answers is None:
        assert "refused without asking (no terminal): the MCP server proto asked to use your model" in \
            stderr.getvalue()


async def test_the_declared_roots_are_what_the_server_lists(logs: Path, closing: list[McpHub], tmp_path: Path) -> None:
    hub, _ = _hub(logs, None)
    closing.append(hub)
    server = McpServer(SERVER.name, SERVER.transport, command=SERVER.command, args=SERVER.args,
                       roots=(str(tmp_path / "project"), str(tmp_path / "notes")))
    outcome = await hub.call_tool(server, "roots", {})
    assert outcome.output.split("\n") == [(tmp_path / "project").as_uri(), (tmp_path / "notes").as_uri()]


async def test_the_conversation_sampler_uses_the_chosen_model_and_refuses_without_one() -> None:
    from domain.errors import InvalidInput
    from tests.fakes_models import FakeSummarizer

    summarizer = FakeSummarizer("short")
    sampler = ConversationSampler(summarizer)
    request = SamplingRequest("proto", (("user", "long text"),), "Be brief.", 40)
    with pytest.raises(InvalidInput, match="No conversation's model is known"):
        await sampler.sample(request)
    assert sampler.estimate(request) is None  # no model yet
    sampler.use("anthropic", "claude-x")
    assert await sampler.sample(request) == SamplingReply("short", "claude-x")
    assert summarizer.prompts == ["long text"]

    priced = ConversationSampler(summarizer, count_tokens=len, price=lambda model: (3.0, 15.0))
    priced.use("anthropic", "claude-x")
    estimate = priced.estimate(request)  # 9 + 9 characters as tokens in, 40 out: (18 * 3 + 40 * 15) / 1e6
    assert estimate == SamplingEstimate("claude-x", 18, 40, pytest.approx(0.000654))
    assert estimate is not None and estimate.describe() == \
        "claude-x: about 18 input + up to 40 output tokens, at most $0.0007"
    assert ConversationSampler(summarizer).estimate(request) is None


async def test_changed_roots_are_notified_to_the_running_server_which_lists_them_again(
    logs: Path, closing: list[McpHub], tmp_path: Path
) -> None:
    hub, _ = _hub(logs, None)
    closing.append(hub)
    first, second, third = (str(tmp_path / n) for n in ("project", "notes", "docs"))
    server = McpServer(SERVER.name, SERVER.transport, command=SERVER.command, args=SERVER.args, roots=(first,))
    assert (await hub.call_tool(server, "roots", {})).output == Path(first).as_uri()

    moved = McpServer(server.name, server.transport, command=server.command, args=server.args, roots=(second,))
    seen = await hub.call_tool(moved, "roots_changes", {"seen": 1})  # the same process, told, not restarted
    assert seen.output == Path(second).as_uri() and not seen.is_error and seen.notice is None

    both = replace(moved, roots=(second, third))
    await hub.roots_changed(both)  # e.g. Settings or `mcp roots` changed them
    seen = await hub.call_tool(both, "roots_changes", {"seen": 2})
    assert seen.output.split("\n") == [Path(second).as_uri(), f"{Path(second).as_uri()} {Path(third).as_uri()}"]


@pytest.mark.parametrize(("answers", "expected", "opened"), [
    ("y\n", "The user chose accept.", ["https://example.com/connect?session=s-1"]),
    ("d\n", "The user chose decline.", []),
    ("c\n", "The user chose cancel.", []),
    (None, "The user chose decline.", []),  # no terminal
])
async def test_a_url_question_shows_the_address_and_opens_it_only_with_consent(
    logs: Path, closing: list[McpHub], answers: str | None, expected: str, opened: list[str]
) -> None:
    stderr: io.StringIO = Tty() if answers is not None else io.StringIO()
    stdin: io.StringIO = Tty(answers) if answers is not None else io.StringIO("")
    urls: list[str] = []
    hub = McpHub(MemorySecrets(), logs, user=TerminalMcpUser(stdin=stdin, stderr=stderr, opener=urls.append))
    closing.append(hub)
    outcome = await hub.call_tool(SERVER, "connect_account", {})
    assert outcome.output == expected and urls == opened
    assert "https://example.com/connect?session=s-1" in stderr.getvalue()
    if answers is None:
        assert "declined without asking (no terminal)" in stderr.getvalue()
    if opened:  # the server's notifications/elicitation/complete, told to the user
        done = "The MCP server proto says the step at https://example.com/connect?session=s-1 is done."
        for _ in range(100):
            if done in stderr.getvalue():
                break
            await asyncio.sleep(0.05)
        assert done in stderr.getvalue()


async def test_a_subscribed_resource_is_marked_changed_when_its_server_says_so(
    logs: Path, closing: list[McpHub]
) -> None:
    hub, _ = _hub(logs, None)
    closing.append(hub)
    assert [c.text for c in await hub.read_resource(SERVER, "notes://live")] == ["Version 1."]
    assert await hub.subscribe_resource(SERVER, "notes://live") is True
    assert not hub.resource_changed("proto", "notes://live")

    assert (await hub.call_tool(SERVER, "edit_live", {"text": "Version 2."})).output == \
        "changed; the subscriber was told"
    for _ in range(100):  # the notification is handled on the hub's loop
        if hub.resource_changed("proto", "notes://live"):
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("notifications/resources/updated never marked the resource")
    assert not hub.resource_changed("proto", "notes://live")  # taken once
    assert [c.text for c in await hub.read_resource(SERVER, "notes://live")] == ["Version 2."]

    crashed = await hub.call_tool(SERVER, "crash", {})  # the server restarts on its next use, subscribed again
    assert crashed.is_error and "stopped while running crash" in crashed.output
    again = await hub.call_tool(SERVER, "edit_live", {"text": "Version 3."})
    assert again.output == "changed; the subscriber was told" and again.notice is not None

    await hub.unsubscribe_resource(SERVER, "notes://live")
    assert (await hub.call_tool(SERVER, "edit_live", {"text": "Version 4."})).output == "changed"
