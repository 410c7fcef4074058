"""The argument parser of `palimpsest`: every command, flag and default of the CLI contract."""

from __future__ import annotations

import argparse

from domain.settings import DEADLINE_RANGE_S, REASONING_LEVELS

EXPORT_FORMATS = ("markdown", "json")


class CliParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one plain line plus the usage, exit status 2."""


def seconds(text: str) -> float:
    """A deadline in seconds, within the range Settings accept."""
    low, high = DEADLINE_RANGE_S
    try:
        value = float(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not low <= value <= high:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"give between {low:g} and {high:,g} seconds, not {text}")
    return value


def build_parser() -> CliParser:
    """The parser for `palimpsest [--debug] [--screenshot FILE [--session ID]] [COMMAND ...]`."""
    parser = CliParser(
        prog="palimpsest",
        description="Chat with Anthropic, OpenAI and Gemini models in conversations that never overflow. "
        "Without a command, opens the desktop app.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    parser.add_argument("--screenshot", metavar="FILE", help="render the main window offscreen into a PNG and exit")
    parser.add_argument("--session", metavar="ID", help="with --screenshot: the session to show")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CliParser)

    chat = commands.add_parser("chat", help="send one message and stream the reply")
    which = chat.add_mutually_exclusive_group()
    which.add_argument("-s", "--session", dest="session_id", metavar="SESSION", help="continue this session")
    which.add_argument("--new", action="store_true", help="start a new session (the default)")
    chat.add_argument("-p", "--provider", metavar="PROVIDER", help="provider id or name")
    chat.add_argument("-m", "--model", metavar="MODEL", help="model id")
    chat.add_argument("--agent", metavar="NAME", help="agent (persona) name or id")
    chat.add_argument("--jsonl", action="store_true", help="print each event as one JSON object per line")
    chat.add_argument("--idle-timeout", type=seconds, metavar="SECONDS",
                      help="give up when the provider sends nothing for this long (keep-alive pings do not count); "
                      "overrides Settings for this command")
    chat.add_argument("--reasoning", choices=REASONING_LEVELS, metavar="LEVEL",
                      help="how much the model thinks before answering: " + " | ".join(REASONING_LEVELS)
                      + " (auto: the model's own default); overrides Settings for this command")
    chat.add_argument("--web-search", action="store_true",
                      help="let the model search the web (the provider's own search) for this command; the reply's "
                      "sources are listed after it")
    chat.add_argument("--allow-tools", action="store_true",
                      help="let tools send requests other than GET/HEAD without asking (else asked on a terminal, "
                      "refused without one)")
    chat.add_argument("--show-thinking", action="store_true",
                      help="print the model's reasoning (when it streams any) dimmed on standard error")
    chat.add_argument("--retry", "--regenerate", dest="retry", action="store_true",
                      help="answer the last message on the session's active path again (with -s; -m/--reasoning "
                      "choose another model or level); the earlier answer stays as another branch")
    chat.add_argument("--edit", metavar="MSG_ID",
                      help="send MESSAGE as a new version of your message MSG_ID (with -s); the old one stays as "
                      "another branch")
    chat.add_argument("--wait", action="store_true",
                      help="when another turn is running in the conversation (-s), queue behind it instead of "
                      "refusing (one turn at a time per conversation)")
    chat.add_argument("-a", "--attach", action="append", default=[], metavar="PATH",
                      help="attach a file: an image (PNG, JPEG, GIF, WebP, BMP, TIFF), a PDF, or a text or code "
                           "file; repeatable")
    chat.add_argument("--reattach", action="append", default=[], metavar="NAME",
                      help="with -s: send an earlier attachment of the session again (its file name or the start of "
                      "its sha256); repeatable")
    chat.add_argument("--mcp-prompt", nargs="+", metavar=("SERVER/PROMPT", "NAME=VALUE"),
                      help="send an MCP server's prompt, filled in with its arguments (MESSAGE, when given, follows "
                      "it); list them with: palimpsest mcp prompts SERVER")
    chat.add_argument("--mcp-resource", nargs=2, action="append", default=[], metavar=("SERVER", "URI"),
                      help="attach an MCP server's resource (read now); repeatable; list them with: palimpsest mcp "
                      "resources SERVER")
    chat.add_argument("message", metavar="MESSAGE", nargs="?", help="the message; - reads standard input")

    _add_sessions(commands)
    _add_providers(commands)
    _add_models(commands)
    _add_keys(commands)
    _add_agents(commands)
    _add_tools(commands)
    imports = _group(commands, "import", "import conversations from another app's export (or Palimpsest's own)")
    for kind, metavar, help_text in (
            ("auto", "PATH", "tell the kind of a file or folder itself (says which it found), then import it"),
            ("chatgpt", "FILE", "ChatGPT's conversations.json (or the export's .zip, whose files become attachments)"),
            ("claude", "FILE", "Claude's conversations.json (or the export's .zip)"),
            ("palimpsest", "FILE", "a `sessions export --format json` file (one session or a list)"),
            ("llm", "PATH", "simonw's llm logs database (logs.db)"),
            ("openwebui", "FILE", "Open WebUI's chat export (.json)"),
            ("librechat", "FILE", "a LibreChat conversation export (.json)"),
            ("chatbox", "FILE", "a Chatbox backup (chatbox-exported-data-*.json)"),
            ("lmstudio", "PATH", "LM Studio's conversations folder (or one *.conversation.json)"),
            ("jan", "PATH", "Jan's data folder, its threads folder, or one thread's folder")):
        source = imports.add_parser(kind, help=help_text)
        source.add_argument("file", metavar=metavar)
    from app.cli.mcp_parser import add_mcp_parser

    add_mcp_parser(commands, _group)
    from app.cli.knowledge_parser import add_knowledge_parser

    add_knowledge_parser(commands, _group)

    from app.cli.sync_parser import add_sync_parser

    add_sync_parser(commands, _group)
    return parser


def _group(commands: argparse._SubParsersAction, name: str, help_text: str) -> argparse._SubParsersAction:
    group = commands.add_parser(name, help=help_text)
    return group.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=CliParser)


def _add_sessions(commands: argparse._SubParsersAction) -> None:
    sessions = _group(commands, "sessions", "list, show, export, search, compact and delete sessions")
    listing = sessions.add_parser("list", help="list sessions, newest first")
    listing.add_argument("--json", action="store_true", help="print JSON")
    shown = listing.add_mutually_exclusive_group()
    shown.add_argument("--archived", action="store_true", help="list only archived sessions")
    shown.add_argument("--all", action="store_true", help="list archived sessions too")
    show = sessions.add_parser("show", help="a session and every message, including summarized ones")
    show.add_argument("id", metavar="ID")
    show.add_argument("--all", action="store_true", help="also messages off the conversation's path (replaced)")
    show.add_argument("--json", action="store_true", help="print JSON")
    export = sessions.add_parser("export", help="export a session as Markdown or JSON")
    export.add_argument("id", metavar="ID")
    export.add_argument("--format", choices=EXPORT_FORMATS, default="markdown")
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output (attachments "
                        "are copied into FILE's name + _attachments/ beside it)")
    export.add_argument("--embed-attachments", action="store_true",
                        help="with --format json: put each attachment in the file, base64-encoded")
    search = sessions.add_parser("search", help="full-text search over messages and summaries")
    search.add_argument("query", metavar="QUERY")
    compact = sessions.add_parser("compact", help="summarize the older part of a session now")
    compact.add_argument("id", metavar="ID")
    compact.add_argument("--instructions", metavar="TEXT", help="what the summary should focus on")
    compact.add_argument("--wait", action="store_true",
                         help="while a turn runs in the conversation, wait for it instead of refusing")
    reset = sessions.add_parser("reset-context", help="drop the summary; every original message is sent again")
    reset.add_argument("id", metavar="ID")
    for name, help_text in (("archive", "take a session off the list (it stays readable and searchable)"),
                            ("unarchive", "put an archived session back on the list")):
        sessions.add_parser(name, help=help_text).add_argument("id", metavar="ID")
    delete = sessions.add_parser("delete", help="delete a session")
    delete.add_argument("id", metavar="ID")
    branches = sessions.add_parser("branches", help="list a session's branches with their leaf and fork messages")
    branches.add_argument("id", metavar="ID")
    branches.add_argument("--json", action="store_true", help="print JSON")
    for name, help_text in (("checkout", "make the branch through a message the conversation (its newest leaf)"),
                            ("fork", "copy the path up to a message into a new session"),
                            ("delete-branch", "delete the part of a branch that no other branch shares")):
        branch_cmd = sessions.add_parser(name, help=help_text)
        branch_cmd.add_argument("id", metavar="ID")
        branch_cmd.add_argument("message_id", metavar="MSG_ID")
    delete.add_argument("--permanently", action="store_true",
                        help="for good, with its attachment files (unless another session has them); cannot be undone")
    context = sessions.add_parser("context", help="what the next request would send, against the model's window")
    context.add_argument("id", metavar="ID")
    context.add_argument("--json", action="store_true", help="print JSON")
    prompt = sessions.add_parser("prompt", help="show or set a session's own system prompt (over its agent's)")
    prompt.add_argument("id", metavar="ID")
    prompt.add_argument("text", nargs="?", metavar="TEXT", help="the new prompt, or - to read it from standard input")
    prompt.add_argument("--clear", action="store_true", help="go back to the agent's prompt")
    web = sessions.add_parser("web-search", help="show or set whether a session's replies may search the web")
    web.add_argument("id", metavar="ID")
    web.add_argument("choice", nargs="?", choices=("on", "off", "default"), metavar="on|off|default")
    reasoning = sessions.add_parser("reasoning", help="show or set a session's own reasoning level")
    reasoning.add_argument("id", metavar="ID")
    reasoning.add_argument("level", nargs="?", choices=[*REASONING_LEVELS, "default"], metavar="LEVEL",
                           help=f"{' | '.join(REASONING_LEVELS)} | default (the agent's or the app's setting)")


def _add_providers(commands: argparse._SubParsersAction) -> None:
    providers = _group(commands, "providers", "list, configure, add and delete providers")
    providers.add_parser("list", help="list providers and where their keys come from")
    setter = providers.add_parser("set", help="set a provider's base URL or API")
    setter.add_argument("provider", metavar="PROVIDER")
    setter.add_argument("--base-url", metavar="URL", help='the base URL ("" restores the default)')
    setter.add_argument("--api", choices=("responses", "chat-completions", "auto"),
                        help="OpenAI's API to speak (auto: Responses on api.openai.com, Chat Completions elsewhere)")
    add = providers.add_parser("add", help="add an OpenAI-compatible provider")
    add.add_argument("name", metavar="NAME")
    add.add_argument("--type", dest="provider_type", required=True, choices=("openai_compatible",))
    add.add_argument("--base-url", metavar="URL", required=True)
    delete = providers.add_parser("delete", help="delete an added provider with its models (sessions stay readable)")
    delete.add_argument("provider", metavar="PROVIDER")


def _add_models(commands: argparse._SubParsersAction) -> None:
    models = _group(commands, "models", "list, refresh and add models")
    listing = models.add_parser("list", help="list models with their context windows")
    listing.add_argument("-p", "--provider", metavar="PROVIDER")
    listing.add_argument("--refresh", action="store_true", help="fetch the provider's model list first")
    add = models.add_parser("add", help="add a model, or set your own window for a known one")
    add.add_argument("provider", metavar="PROVIDER")
    add.add_argument("model", metavar="MODEL")
    add.add_argument("--context-window", type=int, required=True, metavar="N")
    add.add_argument("--max-output", type=int, metavar="N")
    window = models.add_parser(
        "set-window", help="set a model's context window, or `auto` to undo one you set or the app learned or guessed")
    window.add_argument("model", metavar="MODEL", help="the model's id, or PROVIDER/MODEL")
    window.add_argument("window", metavar="N|auto", help="tokens, or auto: the registry's, provider's or server's")
    window.add_argument("-p", "--provider", metavar="PROVIDER")


def _add_keys(commands: argparse._SubParsersAction) -> None:
    keys = _group(commands, "keys", "store API keys in the system keychain")
    setter = keys.add_parser("set", help="store a key (read from standard input or a hidden prompt)")
    setter.add_argument("provider", metavar="PROVIDER")
    delete = keys.add_parser("delete", help="delete a stored key")
    delete.add_argument("provider", metavar="PROVIDER")
    keys.add_parser("status", help="which providers have a key, and from where")


def _add_agents(commands: argparse._SubParsersAction) -> None:
    agents = _group(commands, "agents", "list, show and configure agents (personas)")
    agents.add_parser("list", help="list agents")
    show = agents.add_parser("show", help="an agent's prompt, model, tools and context overrides")
    show.add_argument("name", metavar="NAME")
    show.add_argument("--json", action="store_true", help="print JSON")
    setter = agents.add_parser(
        "set", help="change an agent: system_prompt=..., model=PROVIDER/MODEL, tools=a,b, pruning=off, threshold=80%%"
    )
    setter.add_argument("name", metavar="NAME")
    setter.add_argument("pairs", metavar="KEY=VALUE", nargs="+")


def _add_tools(commands: argparse._SubParsersAction) -> None:
    tools = _group(commands, "tools", "hosts on your own machine or network that http_request may reach")
    tools.add_parser("hosts", help="list the allowed hosts")
    allow = tools.add_parser("allow-host", help="allow a host name, IP address or network (e.g. 192.168.1.0/24)")
    allow.add_argument("host", metavar="HOST")
    disallow = tools.add_parser("disallow-host", help="remove a host from the allowed hosts")
    disallow.add_argument("host", metavar="HOST")
