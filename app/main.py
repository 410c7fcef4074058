"""The `palimpsest` entry point: the desktop app without a command, else the headless CLI (no Qt imported)."""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import signal
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from app.cli.error_text import cli_text
from app.cli.text_input import elide, overlong_identifier, undecodable_argument
from data.redaction import format_exception, redact, redacted_output
from domain.errors import NotFound, PalimpsestError

if TYPE_CHECKING:
    from app.container import Container

EXIT_FAILED = 1
EXIT_BUG = 2
EXIT_USAGE = 2  # as argparse's own errors
EXIT_INTERRUPTED = 130
MAX_LINE_CHARS = 2_000  # an error line never repeats a huge input whole
SHOWN_IDENT_CHARS = 80

HINTS = {
    "session": "See the sessions with: palimpsest sessions list",
    "agent": "Leave out --agent to use the default agent.",
    "message": "See the message ids with: palimpsest sessions show SESSION --json",
}

Command = Callable[["Container", argparse.Namespace, TextIO, TextIO], Coroutine[Any, Any, int]]


def _command(name: str) -> Command:
    if name == "chat":
        from app.cli.chat import run_chat

        return run_chat
    if name == "sessions":
        from app.cli.sessions_cmd import run_sessions

        return run_sessions
    if name == "agents":
        from app.cli.agents_cmd import run_agents

        return run_agents
    if name == "tools":
        from app.cli.tools_cmd import run_tools

        return run_tools
    if name == "mcp":
        from app.cli.mcp_cmd import run_mcp

        return run_mcp
    if name == "knowledge":
        from app.cli.knowledge_cmd import run_knowledge

        return run_knowledge
    if name == "sync":
        from app.cli.sync_cmd import run_sync

        return run_sync
    if name == "import":
        from app.cli.import_cmd import run_import

        return run_import
    from app.cli import providers_cmd

    return {"providers": providers_cmd.run_providers, "models": providers_cmd.run_models,
            "keys": providers_cmd.run_keys}[name]


def _run_gui(args: argparse.Namespace, argv0: str) -> int:
    try:  # Qt is imported here and only here on the command-line path
        from app.gui import render_screenshot, run_gui
    except ImportError as err:
        raise PalimpsestError(
            f"The desktop app cannot start ({err}). Reinstall Palimpsest, or use the command line: palimpsest --help"
        ) from err
    if args.screenshot:
        return int(render_screenshot(args.screenshot, args.session))
    return int(run_gui([argv0]))


def tune_gc_for_a_command() -> None:
    """A command runs briefly and may build many objects at once (every message of a long session): the cyclic garbage
    collector runs less often (reference counting still frees everything else at once), and what is alive now (the
    imported modules) is never scanned again."""
    gc.set_threshold(100_000, 50, 100)
    gc.freeze()


def _run_cli(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.command == "keys" and args.action == "status":  # answered without SQLAlchemy when it can be
        from app.cli.key_status import report_without_storage, write_report

        report = report_without_storage()
        if report is not None:
            write_report(report, out, err)
            return 0
    if args.command == "sessions" and args.action == "list":  # likewise
        from app.cli.session_list import list_without_storage

        if list_without_storage(args, out, err):
            return 0
    import asyncio

    from app.container import Container

    command = _command(args.command)
    approver = None
    if args.command == "chat":  # a tool's request other than GET/HEAD: asked on a terminal, or --allow-tools
        from app.cli.approval import CliApprover

        approver = CliApprover(allow_all=args.allow_tools, stderr=err)
    overrides = {name: value for name, value in (  # palimpsest chat --idle-timeout SECONDS --reasoning LEVEL
        ("idle_timeout_s", getattr(args, "idle_timeout", None)), ("reasoning", getattr(args, "reasoning", None)),
        ("web_search", getattr(args, "web_search", None)),  # --web-search: on for this command
    ) if value}
    from app.adapter_cache import LazyAdapterFactory

    adapters = LazyAdapterFactory(aiohttp=_one_command != [True])  # one command: httpx, no aiohttp (sdk_import)
    lite = (args.command == "chat" and _one_command == [True]  # a turn in a process of its own: no SQLAlchemy
            and not args.retry and not getattr(args, "edit", None))  # (a branch's move is the full store's)
    container = Container.build(approver=approver, context_overrides=overrides or None, adapter_factory=adapters,
                                lite_storage=lite)
    if args.command in ("chat", "mcp"):  # an MCP server's question or sampling request: asked on a terminal
        from app.cli.mcp_user import TerminalMcpUser, sign_in_notice

        container.mcp.user = TerminalMcpUser(stderr=err)
        container.mcp.show_sign_in = sign_in_notice(err)
    try:
        return asyncio.run(_closing_adapters(container, _until_signalled(command(container, args, out, err))))
    finally:
        container.close()


async def _closing_adapters(container: Container, work: Coroutine[Any, Any, int]) -> int:
    """Runs the command, then closes the SDK clients' connections on the loop that used them."""
    try:
        return await work
    finally:
        await container.aclose_adapters()


async def _until_signalled(work: Coroutine[Any, Any, int]) -> int:
    """Runs a command; SIGTERM and SIGHUP stop it like Ctrl-C does (the running turn is cancelled, so everything
    already shown is stored), then the exit status is 128 + the signal's number."""
    import asyncio

    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    received: list[int] = []

    def stop(signum: int) -> None:
        received.append(signum)
        task.cancel()

    handled = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None]
    for signum in handled:
        try:
            loop.add_signal_handler(signum, stop, signum)
        except (NotImplementedError, RuntimeError):  # Windows event loops: Ctrl-C still works
            pass
    try:
        return await task
    except asyncio.CancelledError:
        if received:
            return 128 + int(received[0])
        raise
    finally:
        for signum in handled:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signum)


def error_line(error: PalimpsestError) -> str:
    """The one line printed for a known error: what happened and, where it helps, what to do."""
    message = cli_text(error)
    if isinstance(error, NotFound) and len(error.ident) > SHOWN_IDENT_CHARS:
        message = message.replace(repr(error.ident), repr(elide(error.ident, SHOWN_IDENT_CHARS)))
    line = f"palimpsest: {elide(message, MAX_LINE_CHARS)}"
    hint = HINTS.get(error.what) if isinstance(error, NotFound) else None
    return redact(f"{line} {hint}" if hint and hint not in line else line)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs `palimpsest` with `argv` (default: the process arguments) and returns the exit status."""
    from app.cli.parser import build_parser

    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
    from app.cli.mcp_parser import split_server_command

    arguments, server_command = split_server_command(list(argv) if argv is not None else sys.argv[1:])
    args = build_parser().parse_args(arguments)
    if server_command is not None:
        args.server_command = server_command
    if args.session and not args.screenshot:
        build_parser().error("--session is only used with --screenshot (for chat, use: palimpsest chat -s ID)")
    bad_text = undecodable_argument(args) or overlong_identifier(args)
    if bad_text is not None:  # refused before anything is opened or stored
        print(f"palimpsest: {bad_text}", file=sys.stderr)
        return EXIT_USAGE
    if argv is None and args.command is not None:  # this process runs one command (an embedding caller keeps its GC)
        tune_gc_for_a_command()
    _ran.clear()
    _ran.append(args.command is not None)
    _one_command[:] = [argv is None]
    with redacted_output(debug=args.debug):  # no API key in any log line, traceback or error line
        return _run(args)


_ran: list[bool] = []  # whether the last main() ran a command (not the desktop app)
_one_command: list[bool] = []  # whether the last main() ran on the process arguments (its process's one command)


def cli() -> None:
    """The `palimpsest` script: main() on the process arguments; a command's process then ends at once."""
    status = main()
    if _ran == [True]:
        end_command_process(status)
    raise SystemExit(status)


def end_command_process(status: int) -> None:
    """Ends a process that ran one command with `status`, skipping the interpreter's teardown of every module and
    object one by one (about a fifth of a chat turn's CPU), which frees nothing the system does not: output is
    flushed and the atexit handlers run first, as at any exit. Returns instead (the ordinary exit follows) while
    another thread still runs or when the output cannot be flushed, so those cases end as before."""
    import atexit
    import threading

    if threading.active_count() > 1:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        os._exit(120)  # what the interpreter's own exit returns when it cannot flush
    os._exit(status)


def _run(args: argparse.Namespace) -> int:
    try:
        if args.command is None:
            return _run_gui(args, sys.argv[0] if sys.argv else "palimpsest")
        return _run_cli(args, sys.stdout, sys.stderr)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`palimpsest sessions export ID | head`): stop quietly
        _silence_stdout()
        return EXIT_FAILED
    except PalimpsestError as error:
        if args.debug:
            sys.stderr.write(format_exception(error))
        print(error_line(error), file=sys.stderr)
        return EXIT_FAILED
    except Exception as error:  # a bug: one plain line, the traceback only with --debug
        if args.debug:
            sys.stderr.write(format_exception(error))
        print(
            redact(f"palimpsest: unexpected error ({type(error).__name__}: {error}). "
                   "Run again with --debug to see the details, and please report it."),
            file=sys.stderr,
        )
        return EXIT_BUG


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    cli()
