"""`palimpsest chat --idle-timeout`, and how a wait for the provider is printed (plain text, a terminal, --jsonl)."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from app.cli.chat_printer import JsonlChatPrinter, TextChatPrinter
from app.cli.parser import build_parser
from domain.events import ResponseComplete, TextDelta, Waiting
from domain.models import Usage
from domain.settings import ContextSettings
from tests.cli.harness import Cli
from tests.fakeservers import ErrorReply, FakeAnthropicServer, ScriptedBrain

KEY = "sk-deadline-test-key-1"


def cli_for(tmp_path: Path, server: FakeAnthropicServer) -> Cli:
    (tmp_path / "keychain").mkdir(exist_ok=True)
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", env)


def test_idle_timeout_ends_a_reply_of_only_keep_alive_pings_and_keeps_the_partial_text(tmp_path: Path) -> None:
    with FakeAnthropicServer(ScriptedBrain([ErrorReply("pings_only", interval=0.05)]), api_key=KEY) as server:
        cli = cli_for(tmp_path, server)
        result = cli.run("chat", "-p", "anthropic", "--idle-timeout", "0.5", "hello", subprocess_run=False)
        assert result.code == 1 and result.out == "partial \n"
        lines = result.err.splitlines()
        assert len(lines) == 2, result.err  # `session: ID`, then the one error line
        assert lines[1].startswith("palimpsest: No data from the provider for 0.5 s (idle timeout).")
        session_id = lines[0].removeprefix("session: ")
        shown = cli.run("sessions", "show", session_id, subprocess_run=False)
    assert "assistant (cut off, incomplete)" in shown.out and "    partial" in shown.out


def test_idle_timeout_out_of_range_is_a_usage_error_and_nothing_is_sent(tmp_path: Path) -> None:
    with FakeAnthropicServer(ScriptedBrain(["unused"]), api_key=KEY) as server:
        result = cli_for(tmp_path, server).run("chat", "-p", "anthropic", "--idle-timeout", "0", "hello")
    assert result.code == 2 and server.log == []
    assert "error: argument --idle-timeout: give between 0.1 and 86,400 seconds, not 0" in result.err
    assert "Traceback" not in result.err


def test_idle_timeout_takes_only_a_number_of_seconds_within_the_settings_range(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for bad in ("-3", "soon", "nan", "inf", "100000"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["chat", "--idle-timeout", bad, "hello"])
        assert "argument --idle-timeout:" in capsys.readouterr().err, bad
    assert build_parser().parse_args(["chat", "--idle-timeout", "600", "hello"]).idle_timeout == 600.0


def test_the_command_override_is_read_but_never_stored(tmp_path) -> None:
    from app.container import Container
    from tests.fakes import FakeApiKeyStorage

    c = Container.build(tmp_path / "home", keys=FakeApiKeyStorage(), context_overrides={"idle_timeout_s": 7.5})
    try:
        session = c.create_session(agent=None)
        assert c.contexts.load(session.id, strict=False).settings.idle_timeout_s == 7.5
        c.save_context_settings(replace(c.settings.context_settings(), summary_max_tokens=999))
        stored = c.storage.settings.context_settings()
        assert stored.idle_timeout_s == ContextSettings().idle_timeout_s and stored.summary_max_tokens == 999
    finally:
        c.close()


def test_a_bad_command_override_is_refused_before_anything_runs(tmp_path) -> None:
    from app.container import Container
    from domain.errors import InvalidInput
    from tests.fakes import FakeApiKeyStorage

    with pytest.raises(InvalidInput):
        Container.build(tmp_path / "home", keys=FakeApiKeyStorage(), context_overrides={"reasoning": "extreme"})


def test_jsonl_prints_a_waiting_line_per_event() -> None:
    out = io.StringIO()
    printer = JsonlChatPrinter(out)
    printer.event(Waiting(5))
    printer.event(Waiting(0))
    assert [json.loads(line) for line in out.getvalue().splitlines()] == [
        {"type": "waiting", "seconds": 5}, {"type": "waiting", "seconds": 0}]


def test_without_a_terminal_a_wait_is_a_plain_line_at_once_then_every_half_minute() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = TextChatPrinter(out, err)
    for seconds in (5, 10, 15, 20, 25, 30, 35, 60):
        printer.event(Waiting(seconds))
    printer.event(Waiting(0))
    printer.event(TextDelta("Hi"))
    printer.event(Waiting(5))
    assert err.getvalue().splitlines() == [
        "[waiting for the provider… 5 s]", "[waiting for the provider… 30 s]", "[waiting for the provider… 60 s]",
        "[waiting for the provider… 5 s]"]
    assert out.getvalue() == "Hi"  # the reply's text is never broken by a wait


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_wait_is_one_dimmed_line_updated_in_place_and_cleared() -> None:
    out, err = Terminal(), Terminal()
    printer = TextChatPrinter(out, err)
    printer.event(Waiting(5))
    printer.event(Waiting(10))
    printer.event(TextDelta("Hello"))
    printer.event(Waiting(5))  # mid-line of the reply on the same screen: not shown
    printer.event(ResponseComplete("m1", Usage()))
    dim = "\x1b[2m"
    assert err.getvalue() == (f"\r\x1b[2K{dim}waiting for the provider… 5 s\x1b[0m"
                              f"\r\x1b[2K{dim}waiting for the provider… 10 s\x1b[0m\r\x1b[2K")
    assert out.getvalue() == "Hello\n"
