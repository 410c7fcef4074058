"""The CLI as a real process: error lines without tracebacks, --debug, no Qt on the CLI path, Ctrl-C, entry points."""

from __future__ import annotations

import contextlib
import io
import signal
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path

import pytest

from tests.cli.harness import ROOT, Cli
from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import NormalizedRequest, Reply


def make_cli(tmp_path: Path) -> Cli:
    (tmp_path / "keychain").mkdir(exist_ok=True)
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")


def test_a_corrupt_database_is_one_plain_line_naming_the_file_and_is_left_untouched(tmp_path: Path) -> None:
    cli = make_cli(tmp_path)
    cli.home.mkdir()
    db = cli.home / "palimpsest.db"
    db.write_bytes(b"this is not a database at all" * 100)
    result = cli.run("sessions", "list")
    assert result.code == 1
    assert result.err.count("\n") == 1 and result.err.startswith("palimpsest: ")
    assert str(db) in result.err and "Traceback" not in result.err
    assert db.read_bytes() == b"this is not a database at all" * 100


def test_an_unknown_session_is_one_line_and_debug_adds_the_traceback(tmp_path: Path) -> None:
    cli = make_cli(tmp_path)
    plain = cli.run("sessions", "show", "no-such-id")
    line = "palimpsest: No session named 'no-such-id'. See the sessions with: palimpsest sessions list"
    assert (plain.code, plain.out, plain.err) == (1, "", line + "\n")
    debug = cli.run("--debug", "sessions", "show", "no-such-id")
    assert debug.code == 1 and "Traceback" in debug.err
    assert debug.err.rstrip().endswith(line)


def test_bad_arguments_print_the_usage_and_exit_2(tmp_path: Path) -> None:
    result = make_cli(tmp_path).run("models", "add", "openai", "m", "--context-window", "lots")
    assert result.code == 2 and "invalid int value" in result.err and "Traceback" not in result.err


def test_the_command_line_path_never_imports_qt(tmp_path: Path) -> None:
    cli = make_cli(tmp_path)
    code = (
        "import sys; from app.main import main; main(['providers', 'list']); main(['sessions', 'list']);"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'qasync')];"
        "print('QT', bad)"
    )
    done = subprocess.run([sys.executable, "-c", code], env=cli.env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert "QT []" in done.stdout, done.stdout + done.stderr


def test_the_console_script_and_python_dash_m_app_run_cli() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["palimpsest"] == "app.main:cli"
    done = subprocess.run([sys.executable, "-m", "app", "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "usage: palimpsest" in done.stdout


class SlowBrain:
    """Holds the first chat request for a while so the test can interrupt the CLI mid-turn."""

    def __init__(self) -> None:
        self.arrived = threading.Event()

    def respond(self, request: NormalizedRequest) -> Reply:
        self.arrived.set()
        time.sleep(3.0)
        return Reply.of_text("too late")


def test_ctrl_c_during_chat_exits_130_and_keeps_what_the_user_typed(tmp_path: Path) -> None:
    cli = make_cli(tmp_path)
    brain = SlowBrain()
    with FakeAnthropicServer(brain) as server:
        for args in (("providers", "set", "anthropic", "--base-url", server.base_url),
                     ("models", "add", "anthropic", "claude-slow", "--context-window", "8192")):
            assert cli.run(*args, subprocess_run=False).code == 0
        env = {**cli.env, "ANTHROPIC_API_KEY": "sk-env-key"}
        # The command starts with Ctrl-C's default, as at a terminal. A test run launched in the background (`&`
        # without job control) ignores SIGINT, and an ignored signal stays ignored in every child; a handled one is
        # reset to the default by exec, so the handler is set here for the length of the start.
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "app", "chat", "-p", "anthropic", "-m", "claude-slow", "keep this 潮 message"],
                env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
            )
        finally:
            signal.signal(signal.SIGINT, previous)
        try:
            assert brain.arrived.wait(60), "the CLI never reached the provider"
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert "too late" not in out
    session_id = err.split("session: ", 1)[1].split()[0]
    shown = cli.run("sessions", "show", session_id, "--json", subprocess_run=False)
    assert '"content": "keep this 潮 message"' in shown.out


def test_screenshot_renders_the_main_window_into_a_png(tmp_path: Path) -> None:
    cli = make_cli(tmp_path)
    target = tmp_path / "window.png"
    result = cli.run("--screenshot", str(target))
    assert result.code == 0, result.err
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_session_without_screenshot_is_a_usage_error(tmp_path: Path) -> None:
    result = make_cli(tmp_path).run("--session", "abc", "sessions", "list")
    assert result.code == 2 and "--session is only used with --screenshot" in result.err


def test_a_reader_that_goes_away_ends_the_command_quietly(capsys: pytest.CaptureFixture[str]) -> None:
    from app.main import main

    class ClosedPipe(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    with contextlib.redirect_stdout(ClosedPipe()):
        code = main(["providers", "list"])  # like `palimpsest providers list | head -0`
    assert code == 1
    assert capsys.readouterr().err == ""


def test_without_a_keychain_keys_set_says_to_use_the_environment_variable(tmp_path: Path) -> None:
    cli = make_cli(tmp_path)
    cli.env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    result = cli.run("keys", "set", "openai", stdin="sk-never-stored\n")
    assert result.code == 1 and result.err.count("\n") == 1
    assert "OPENAI_API_KEY" in result.err and "sk-never-stored" not in result.err
    status = cli.run("keys", "status")
    assert status.code == 0 and "Note: No system keychain" in status.err
