"""The tool guard from the command line: `chat --allow-tools` lets a POST through to an allowed local server; without
it and without a terminal the model reads the refusal and the turn completes; `tools` manages the allowed hosts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.cli.parser import build_parser
from domain.usecases.generate_title import TITLE_SYSTEM
from tests.cli.echo_server import EchoServer
from tests.cli.harness import Cli, CliResult
from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply, ToolCall, ToolResultPart

KEY = "sk-ant-guard-test-5c1e"
MODEL = "claude-guard-8k"


class RequestingBrain:
    """Asks for one http_request (the method and URL given), then answers with what the tool result said."""

    def __init__(self, url: str, method: str = "POST") -> None:
        self.url, self.method = url, method
        self.results: list[ToolResultPart] = []

    def respond(self, request: NormalizedRequest) -> Answer:
        if TITLE_SYSTEM in request.system:
            return Reply.of_text("Guard test")
        results = [p for p in request.messages[-1].parts if isinstance(p, ToolResultPart)]
        if results:
            self.results.extend(results)
            return Reply.of_text("Tool said: " + results[-1].text[:80])
        call = {"url": self.url, "method": self.method}
        if self.method == "POST":
            call |= {"headers": {"Content-Type": "application/json"}, "body": '{"note": "buy milk"}'}
        return Reply(tool_calls=(ToolCall("http_request", call),))


@dataclass
class Env:
    """A configured CLI (no host allowed by the environment) with a fake Anthropic server and a local echo server."""

    cli: Cli
    server: FakeAnthropicServer
    echo: EchoServer

    def run(self, *args: str, stdin: str = "") -> CliResult:
        return self.cli.run(*args, stdin=stdin, subprocess_run=False)

    def chat(self, brain: RequestingBrain, *flags: str) -> tuple[CliResult, list[dict[str, object]]]:
        self.server.brain = brain
        result = self.run("chat", "--jsonl", "-p", "anthropic", "-m", MODEL, *flags, "store a note")
        return result, [json.loads(line) for line in result.out.splitlines()]


@pytest.fixture()
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    monkeypatch.delenv("PALIMPSEST_TOOL_ALLOW_HOSTS", raising=False)  # only what the user allowed counts here
    (tmp_path / "keychain").mkdir()
    with FakeAnthropicServer(RequestingBrain("http://unused"), api_key=KEY) as server, EchoServer() as echo:
        e = Env(Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json"), server, echo)
        assert "PALIMPSEST_TOOL_ALLOW_HOSTS" not in e.cli.env
        assert e.run("providers", "set", "anthropic", "--base-url", server.base_url).code == 0
        assert e.run("models", "add", "anthropic", MODEL, "--context-window", "8192").code == 0
        assert e.run("keys", "set", "anthropic", stdin=KEY + "\n").code == 0
        yield e


def test_chat_with_allow_tools_sends_a_post_to_an_allowed_local_host(env: Env) -> None:
    assert env.run("tools", "allow-host", "127.0.0.1").code == 0
    brain = RequestingBrain(f"{env.echo.url}/notes")
    result, lines = env.chat(brain, "--allow-tools")
    assert result.code == 0, result.err
    assert env.echo.received.requests[0][:3] == ("POST", "/notes", '{"note": "buy milk"}')
    assert env.echo.received.requests[0][3]["Content-Type"] == "application/json"
    [tool_result] = brain.results
    assert not tool_result.is_error and tool_result.text.startswith("HTTP 201")
    assert "response_complete" in [line["type"] for line in lines]


def test_without_allow_tools_and_without_a_terminal_the_model_reads_the_refusal_and_the_turn_completes(
    env: Env,
) -> None:
    assert env.run("tools", "allow-host", "127.0.0.1").code == 0
    brain = RequestingBrain(f"{env.echo.url}/notes")
    result, lines = env.chat(brain)
    assert result.code == 0, result.err
    assert env.echo.received.requests == []  # nothing was sent
    [tool_result] = brain.results
    assert tool_result.is_error
    assert f"The user did not allow this POST request to {env.echo.url}/notes" in tool_result.text
    assert "refused without asking (no terminal)" in result.err and "--allow-tools" in result.err
    kinds = [line["type"] for line in lines]
    assert "response_complete" in kinds and "error" not in kinds


def test_a_local_host_is_refused_until_the_user_allows_it_and_reached_after(env: Env) -> None:
    brain = RequestingBrain(f"{env.echo.url}/page", method="GET")
    result, _ = env.chat(brain)
    assert result.code == 0, result.err
    assert brain.results[0].is_error and "Refused: 127.0.0.1 is a loopback address" in brain.results[0].text
    assert "Settings → Tools → Allowed hosts" in brain.results[0].text
    assert env.echo.received.requests == []
    assert env.run("tools", "allow-host", "127.0.0.1").code == 0
    brain = RequestingBrain(f"{env.echo.url}/page", method="GET")
    assert env.chat(brain)[0].code == 0
    assert not brain.results[0].is_error and brain.results[0].text.startswith("HTTP 200")
    assert [r[:2] for r in env.echo.received.requests] == [("GET", "/page")]


def test_even_allow_tools_does_not_open_a_host_that_was_not_allowed(env: Env) -> None:
    brain = RequestingBrain(f"{env.echo.url}/notes")
    result, _ = env.chat(brain, "--allow-tools")
    assert result.code == 0, result.err
    assert brain.results[0].is_error and "Refused:" in brain.results[0].text
    assert env.echo.received.requests == []


def test_tools_commands_list_allow_and_disallow_hosts(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = env.run("tools", "hosts")
    assert (empty.code, empty.out) == (0, "")
    assert "No allowed hosts." in empty.err and "palimpsest tools allow-host HOST" in empty.err
    allowed = env.run("tools", "allow-host", "NAS.lan")
    assert (allowed.code, allowed.out) == (0, "Allowed nas.lan: http_request may reach it (any port).\n")
    assert env.run("tools", "allow-host", "[::1]").code == 0
    assert env.run("tools", "hosts").out == "nas.lan\n::1\n"
    removed = env.run("tools", "disallow-host", "nas.lan")
    assert (removed.code, removed.out) == (0, "Removed nas.lan from the allowed hosts.\n")
    assert env.run("tools", "hosts").out == "::1\n"
    env.cli.env["PALIMPSEST_TOOL_ALLOW_HOSTS"] = "printer.lan, 10.0.0.0/8"
    assert env.run("tools", "hosts").out == (
        "::1\nprinter.lan  (from PALIMPSEST_TOOL_ALLOW_HOSTS)\n10.0.0.0/8  (from PALIMPSEST_TOOL_ALLOW_HOSTS)\n")


@pytest.mark.parametrize(("args", "says"), [
    (("allow-host", "http://localhost:8080/"), "palimpsest: 'http://localhost:8080/' is a URL; give only its host"),
    (("allow-host", "*.lan"), "palimpsest: '*.lan': wildcards are not supported"),
    (("allow-host", "10.1.2.3/8"), "palimpsest: '10.1.2.3/8' has host bits set; the network is 10.0.0.0/8"),
    (("disallow-host", "nas.lan"), "palimpsest: 'nas.lan' is not an allowed host. Allowed hosts: none."),
])
def test_tools_commands_refuse_junk_with_one_line_and_store_nothing(env: Env, args: tuple[str, ...], says: str
                                                                    ) -> None:
    result = env.run("tools", *args)
    assert result.code == 1
    assert result.err.startswith(says) and result.err.count("\n") == 1
    assert env.run("tools", "hosts").out == ""


def test_the_parser_takes_allow_tools_on_chat_and_the_tools_group() -> None:
    parser = build_parser()
    assert parser.parse_args(["chat", "--allow-tools", "hi"]).allow_tools is True
    assert parser.parse_args(["chat", "hi"]).allow_tools is False
    assert parser.parse_args(["tools", "allow-host", "nas.lan"]).host == "nas.lan"
    assert parser.parse_args(["tools", "hosts"]).action == "hosts"
