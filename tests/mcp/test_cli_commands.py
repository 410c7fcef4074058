"""`palimpsest mcp ...` through the real CLI (in-process): import, tools, permission, enable/disable, log, remove, and
clear one-line errors for bad input; the terminal's Always answer for an MCP tool."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from app.cli.approval import CliApprover
from domain.mcp_tools import approval_request
from domain.tool_approval import ApprovalDecision
from tests.cli.harness import Cli, CliResult
from tests.mcp.test_tools_with_mcp import FILES
from tests.tools.test_tool_approval import Terminal


@pytest.fixture()
def cli(tmp_path: Path) -> Cli:
    (tmp_path / "keychain").mkdir()
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")


def run(cli: Cli, *args: str) -> CliResult:
    return cli.run(*args, subprocess_run=False)


def test_import_adds_the_servers_that_start_and_names_those_that_do_not(cli: Cli, tmp_path: Path) -> None:
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {
        "test_files": {"command": sys.executable, "args": ["-m", "tests.mcp.server"], "env": {"TOKEN": "t-1"}},
        "missing": {"command": "/nonexistent/mcp-server"},
    }}))
    result = run(cli, "mcp", "import", str(config))
    assert result.code == 0, result.err
    assert result.out == "Added MCP server test-files with 10 tools.\n"
    assert "Skipped missing: The MCP server 'missing' could not be started: command not found" in result.err
    listed = json.loads(run(cli, "mcp", "list", "--json").out)
    assert [(s["name"], s["env"]) for s in listed] == [("test-files", ["TOKEN"])]
    assert b"t-1" not in (cli.home / "palimpsest.db").read_bytes()  # the value is in the keychain only
    assert "t-1" in cli.keyring_file.read_text()


@pytest.mark.parametrize(("content", "says"), [
    ("{not json", "is not valid JSON"),
    ('{"servers": []}', "no \"mcpServers\" object"),
    ('{"mcpServers": {"a": {"args": []}}}', "neither a \"command\" nor a \"url\""),
])
def test_a_bad_import_file_is_one_line_and_adds_nothing(cli: Cli, tmp_path: Path, content: str, says: str) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(content)
    result = run(cli, "mcp", "import", str(config))
    assert result.code == 1 and says in result.err and len(result.err.strip().splitlines()) == 1
    assert "Traceback" not in result.err
    assert run(cli, "mcp", "list").err.startswith("No MCP servers.")


def test_an_import_file_that_does_not_exist_is_named(cli: Cli, tmp_path: Path) -> None:
    result = run(cli, "mcp", "import", str(tmp_path / "nope.json"))
    assert result.code == 1 and f"Cannot read {tmp_path / 'nope.json'}" in result.err


def test_tools_permission_switches_log_and_remove(cli: Cli) -> None:
    assert run(cli, "mcp", "add", "files", "--", sys.executable, "-m", "tests.mcp.server").code == 0
    tools = run(cli, "mcp", "tools", "files")
    assert tools.code == 0
    lines = tools.out.splitlines()
    assert lines[0].split() == ["TOOL", "RULE", "TOKENS", "DESCRIPTION"]
    assert lines[1].split()[:2] == ["read_file", "ask"] and int(lines[1].split()[2]) > 10

    assert run(cli, "mcp", "permission", "files", "*", "allow").out == "files: * is now allow.\n"
    assert all(line.split()[1] == "allow" for line in run(cli, "mcp", "tools", "files").out.splitlines()[1:])
    bad = run(cli, "mcp", "permission", "files", "chmod", "deny")
    assert bad.code == 1 and "has no tool 'chmod'" in bad.err

    off = run(cli, "mcp", "disable", "files", "--agent", "General assistant")
    assert off.out == "files is off for agent General assistant.\n"
    assert run(cli, "mcp", "disable", "files", "--session", "nope").code == 1
    assert run(cli, "mcp", "log", "files").out.strip() == str(cli.home / "logs" / "mcp" / "files.log")

    assert run(cli, "mcp", "remove", "files").out == "Removed MCP server files.\n"
    gone = run(cli, "mcp", "remove", "files")
    assert gone.code == 1 and "No MCP server named 'files'" in gone.err


@pytest.mark.parametrize(("args", "says"), [
    (("mcp", "add", "my files", "--", "x"), "Invalid MCP server name 'my files'"),
    (("mcp", "add", "files"), "either a command (after --) or --url"),
    (("mcp", "add", "web", "--url", "ftp://x"), "must start with http:// or https://"),
    (("mcp", "add", "web", "--url", "http://h/mcp", "--header", "novalue"), "Give --header as NAME:VALUE"),
    (("mcp", "add", "x", "--env", "A", "--", "x"), "Give --env as NAME=VALUE"),
    (("mcp", "add", "nope", "--", "/nonexistent/mcp-server"), "could not be started: command not found"),
])
def test_bad_input_to_add_is_one_line_and_stores_nothing(cli: Cli, args: tuple[str, ...], says: str) -> None:
    result = run(cli, *args)
    assert result.code == 1 and says in result.err and "Traceback" not in result.err
    assert run(cli, "mcp", "list", "--json").out == "[]\n"


async def test_on_a_terminal_a_for_always_remembers_an_mcp_tool_and_y_allows_once() -> None:
    request = approval_request(FILES, "read", {"path": "a"})
    stderr = Terminal()
    assert await CliApprover(stdin=Terminal("a\n"), stderr=stderr).decide(request) is ApprovalDecision.ALWAYS
    assert stderr.getvalue().endswith("Allow? [y/a/N] (a: always allow this tool) ")
    assert await CliApprover(stdin=Terminal("y\n"), stderr=Terminal()).decide(request) is ApprovalDecision.ONCE
    assert await CliApprover(stdin=Terminal("\n"), stderr=Terminal()).decide(request) is ApprovalDecision.DENY
    no_memory = approval_request(FILES, "read", {})
    from dataclasses import replace

    plain = replace(no_memory, can_remember=False)  # http_request's questions cannot be remembered
    assert await CliApprover(stdin=Terminal("a\n"), stderr=Terminal()).decide(plain) is ApprovalDecision.DENY


def test_options_before_the_double_dash_are_ours_and_everything_after_is_the_servers() -> None:
    from app.cli.mcp_parser import split_server_command

    argv = ["mcp", "add", "files", "--env", "K=V", "--timeout", "5", "--", "python", "-m", "srv", "--", "--url", "x"]
    assert split_server_command(argv) == (["mcp", "add", "files", "--env", "K=V", "--timeout", "5"],
                                          ["python", "-m", "srv", "--", "--url", "x"])
    assert split_server_command(["chat", "--", "-hello"]) == (["chat", "--", "-hello"], None)
    assert split_server_command(["mcp", "list"]) == (["mcp", "list"], None)
    assert split_server_command(["chat", "mcp", "add", "--", "x"]) == (["chat", "mcp", "add", "--", "x"], None)
    assert split_server_command(["--debug", "mcp", "add", "f", "--", "x"]) == (["--debug", "mcp", "add", "f"], ["x"])


def test_add_with_an_environment_value_and_a_timeout_before_the_command(cli: Cli) -> None:
    result = run(cli, "mcp", "add", "files", "--env", "MARK=m-1", "--timeout", "30", "--",
                 sys.executable, "-m", "tests.mcp.server")
    assert result.code == 0, result.err
    [server] = json.loads(run(cli, "mcp", "list", "--json").out)
    assert server["env"] == ["MARK"] and server["timeout_s"] == 30.0 and server["args"] == ["-m", "tests.mcp.server"]


def test_roots_and_the_sampling_rule_are_listed_changed_and_stored(cli: Cli, tmp_path: Path) -> None:
    project, notes = tmp_path / "project", tmp_path / "notes"
    added = run(cli, "mcp", "add", "files", "--root", str(project), "--", sys.executable, "-m", "tests.mcp.server")
    assert added.code == 0, added.err
    assert run(cli, "mcp", "roots", "files").out == f"{project}\n"

    assert run(cli, "mcp", "roots", "files", "add", str(notes), str(project)).out == f"{project}\n{notes}\n"
    assert run(cli, "mcp", "roots", "files", "remove", str(project)).out == f"{notes}\n"
    assert json.loads(run(cli, "mcp", "list", "--json").out)[0]["roots"] == [str(notes)]

    unknown = run(cli, "mcp", "roots", "files", "remove", str(project))
    assert unknown.code == 1 and f"{project} is not a root of 'files' (roots: {notes})" in unknown.err
    assert run(cli, "mcp", "roots", "files", "remove", str(notes)).out == "files has no roots.\n"
    assert "Name the folders to add" in run(cli, "mcp", "roots", "files", "add").err

    # the same server's sampling rule: asked each time until "always" (stored), revocable
    assert run(cli, "mcp", "sampling", "files").out == "files: sampling is ask (each request).\n"
    assert run(cli, "mcp", "sampling", "files", "allow").out == "files: sampling is allow (runs without asking).\n"
    assert json.loads(run(cli, "mcp", "list", "--json").out)[0]["sampling"] == "allow"
    assert run(cli, "mcp", "sampling", "files", "ask").out == "files: sampling is ask (each request).\n"
    assert json.loads(run(cli, "mcp", "list", "--json").out)[0]["sampling"] == "ask"
