"""The arguments of `palimpsest mcp ...` (argparse only: building the parser loads nothing else)."""

from __future__ import annotations

import argparse
from typing import Any


def add_mcp_parser(commands: argparse._SubParsersAction, group: Any) -> None:
    """The `mcp` command group (called by the CLI parser)."""
    mcp = group(commands, "mcp", "MCP servers whose tools the model can use")
    add = mcp.add_parser("add", help="add a server: NAME -- COMMAND ARGS..., or NAME --url URL",
                         usage="palimpsest mcp add NAME [--url URL] [--header NAME:VALUE] [--env NAME=VALUE] "
                         "[--timeout SECONDS] [--root PATH] [-- COMMAND ARGS...]")
    add.add_argument("name", metavar="NAME")
    add.add_argument("--url", metavar="URL", help="a Streamable HTTP server's URL")
    add.add_argument("--header", action="append", metavar="NAME:VALUE",
                     help="an HTTP header (its value is kept in the keychain)")
    add.add_argument("--env", action="append", metavar="NAME=VALUE",
                     help="an environment variable of the command (its value is kept in the keychain)")
    add.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS", help="a call's time limit (120)")
    add.add_argument("--root", action="append", default=[], metavar="PATH",
                     help="a folder the server may use, declared to it as a root; repeatable")
    add.set_defaults(server_command=[])  # everything after `--` (see split_server_command)
    listing = mcp.add_parser("list", help="list the servers")
    listing.add_argument("--json", action="store_true", help="print JSON")
    tools = mcp.add_parser("tools", help="start a server, list its tools with their rules and sizes")
    tools.add_argument("name", metavar="NAME")
    remove = mcp.add_parser("remove", help="remove a server (and its secrets from the keychain)")
    remove.add_argument("name", metavar="NAME")
    logout = mcp.add_parser("logout", help="sign out of a remote server: delete its OAuth tokens from the keychain")
    logout.add_argument("name", metavar="NAME")
    imp = mcp.add_parser("import", help="add the servers of another client's JSON configuration (mcpServers)")
    imp.add_argument("file", metavar="FILE")
    rule = mcp.add_parser("permission", help="set a tool's rule: ask (the default), allow or deny; TOOL * for all")
    rule.add_argument("name", metavar="NAME")
    rule.add_argument("tool", metavar="TOOL")
    rule.add_argument("rule", metavar="RULE", choices=("ask", "allow", "deny"))
    for action in ("enable", "disable"):
        toggle = mcp.add_parser(action, help=f"turn a server {'on' if action == 'enable' else 'off'} for an agent "
                                "or a session")
        toggle.add_argument("name", metavar="NAME")
        which = toggle.add_mutually_exclusive_group(required=True)
        which.add_argument("--agent", metavar="AGENT")
        which.add_argument("--session", dest="session_id", metavar="SESSION")
    prompts = mcp.add_parser("prompts", help="start a server, list its prompts and their arguments (* required)")
    prompts.add_argument("name", metavar="NAME")
    prompts.add_argument("--complete", nargs=3, metavar=("PROMPT", "ARGUMENT", "PREFIX"),
                         help="print the server's completions of a prompt argument's start, one a line")
    resources = mcp.add_parser("resources", help="start a server, list its resources")
    resources.add_argument("name", metavar="NAME")
    roots = mcp.add_parser("roots", help="list, add or remove the folders a server may use (a running server is told)",
                           usage="palimpsest mcp roots NAME [add|remove PATH...]")
    roots.add_argument("name", metavar="NAME")
    roots.add_argument("change", nargs="?", choices=("add", "remove"), metavar="add|remove")
    roots.add_argument("paths", nargs="*", metavar="PATH")
    sampling = mcp.add_parser("sampling", help="whether a server's requests to use your model are asked each time "
                              "(ask, the default) or run without asking (allow)")
    sampling.add_argument("name", metavar="NAME")
    sampling.add_argument("rule", nargs="?", choices=("ask", "allow"), metavar="ask|allow")
    log = mcp.add_parser("log", help="the file a stdio server's error output goes to")
    log.add_argument("name", metavar="NAME")


def split_server_command(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """For `mcp add ... -- COMMAND ARGS...`: the arguments before `--` and the server's command line after it
    (None for any other command), so the command's own options (`-m`, `--port`) are never read as ours."""
    start, index = None, 0
    while index < len(argv):  # the command is the first word that is not a global option or its value
        word = argv[index]
        if word in ("--screenshot", "--session"):
            index += 2
            continue
        if not word.startswith("-"):
            start = index if word == "mcp" else None
            break
        index += 1
    if start is None:
        return argv, None
    if argv[start + 1:start + 2] != ["add"] or "--" not in argv[start + 2:]:
        return argv, None
    cut = argv.index("--", start + 2)
    return argv[:cut], argv[cut + 1:]
