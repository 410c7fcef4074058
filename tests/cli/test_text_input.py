"""Bytes that are not UTF-8 (on stdin or in argv) are refused with a clear line; no failure leaves an empty session."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest

from app.cli.chat import run_chat
from app.cli.text_input import first_surrogate, read_stdin_text, require_text, shown
from domain.errors import InvalidInput
from tests.cli.harness import ROOT, Cli
from tests.fakeservers import FakeAnthropicServer, ScriptedBrain

KEY = "sk-ant-text-input-test-1"


def _cli(tmp_path: Path, extra: dict[str, str] | None = None) -> Cli:
    (tmp_path / "keychain").mkdir(exist_ok=True)
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", extra)


def _run_bytes(cli: Cli, args: list[bytes], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """Runs palimpsest with raw byte arguments (decoded by Python with surrogateescape, as from a terminal)."""
    return subprocess.run([sys.executable.encode(), b"-m", b"app", *args], env=cli.env, cwd=ROOT, input=stdin,
                          capture_output=True, timeout=120)


def _sessions(cli: Cli) -> list[dict[str, Any]]:
    listed = cli.run("sessions", "list", "--json")
    assert listed.code == 0, listed.err
    return cast(list[dict[str, Any]], json.loads(listed.out))


@pytest.mark.parametrize("stdin", [
    "café au lait".encode("latin-1"),  # a Latin-1 file piped in
    b"valid start \xff\xfe then junk",
    "a lone \ud800 surrogate".encode("utf-8", "surrogatepass"),  # CESU-style bytes of a lone surrogate
])
def test_stdin_that_is_not_utf8_is_refused_in_one_line_and_no_session_is_left(tmp_path: Path, stdin: bytes) -> None:
    cli = _cli(tmp_path, {"ANTHROPIC_API_KEY": KEY})
    done = _run_bytes(cli, [b"chat", b"-"], stdin)
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert err.startswith("palimpsest: Standard input is not valid UTF-8 text (the byte 0x") and "iconv" in err
    assert err.count("\n") == 1 and "Traceback" not in err and "UnicodeEncodeError" not in err
    assert _sessions(cli) == []


def test_an_argument_with_undecodable_bytes_is_refused_before_anything_is_stored(tmp_path: Path) -> None:
    cli = _cli(tmp_path, {"ANTHROPIC_API_KEY": KEY})
    done = _run_bytes(cli, [b"chat", b"caf\xe9 cr\xe8me"])
    err = done.stderr.decode()
    assert done.returncode == 2
    assert err == ('palimpsest: the argument "caf\\xe9 cr\\xe8me" is not valid UTF-8 text (the byte 0xE9 at '
                   "character 3). Type it again as UTF-8, or pipe the message in on standard input with MESSAGE "
                   "set to -.\n")
    assert _sessions(cli) == []
    added = _run_bytes(cli, [b"providers", b"add", b"Local\xff", b"--type", b"openai_compatible",
                             b"--base-url", b"http://127.0.0.1:9/v1"])
    assert added.returncode == 2 and b'"Local\\xff" is not valid UTF-8 text' in added.stderr
    assert b"Traceback" not in added.stderr
    assert "Local" not in cli.run("providers", "list").out


def test_a_key_with_undecodable_bytes_is_refused_without_quoting_it(tmp_path: Path) -> None:
    cli = _cli(tmp_path)
    done = _run_bytes(cli, [b"keys", b"set", b"anthropic"], b"sk-secret-\xff-value\n")
    err = done.stderr.decode()
    assert done.returncode == 1 and "The key is not valid UTF-8 text" in err
    assert "sk-secret" not in err and "Traceback" not in err


def test_utf8_on_stdin_with_a_byte_order_mark_is_sent_without_it(tmp_path: Path) -> None:
    with FakeAnthropicServer(ScriptedBrain(["noted"]), api_key=KEY) as server:
        cli = _cli(tmp_path, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url})
        done = _run_bytes(cli, [b"chat", b"-"], "\ufeffcafé ☕ 東京".encode())
        assert done.returncode == 0, done.stderr.decode()
        assert server.requests[0].messages[-1].parts[0].text == "café ☕ 東京"  # type: ignore[union-attr]


def test_the_text_helpers_name_the_bad_byte_and_leave_good_text_alone() -> None:
    assert first_surrogate("plain ☕") is None and first_surrogate("ab\udcffc") == 2
    assert shown("x\udce9\ud800" + "y" * 50).startswith("x\\xe9\\ud800y") and shown("z" * 50).endswith("…")
    assert require_text("ok ☕", "The message") == "ok ☕"
    with pytest.raises(InvalidInput, match="the lone surrogate U\\+D800 at character 1"):
        require_text("a\ud800", "The message")
    with pytest.raises(InvalidInput, match="offset 2"):
        read_stdin_text(cast(Any, _BytesStdin(b"ok\xc3(")))


class _BytesStdin(io.TextIOWrapper):
    """A text stream over bytes, like sys.stdin."""

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")


class _Sessions:
    def __init__(self) -> None:
        self.purged: list[str] = []

    def purge(self, session_id: str) -> None:
        self.purged.append(session_id)


class _Messages:
    def count(self, session_id: str) -> int:
        return 0


@dataclass(frozen=True)
class _NewSession:
    id: str
    current_provider_id: str | None = None
    current_model_id: str | None = None
    current_agent_id: str | None = None


class _FailingContainer:
    """Creates a session, then fails the turn before its first message is stored."""

    def __init__(self) -> None:
        self.sessions = _Sessions()
        self.messages = _Messages()

    def create_session(self, **_: object) -> _NewSession:
        return _NewSession("s-new")

    async def send_message(self, *_: object, **__: object) -> AsyncIterator[object]:
        raise RuntimeError("the turn broke before storing anything")
        yield  # pragma: no cover - makes this an async generator


def test_a_turn_that_fails_before_storing_a_message_removes_the_session_it_created() -> None:
    container = _FailingContainer()
    args = argparse.Namespace(message="hello", provider=None, agent=None, session_id=None, model=None, jsonl=False,
                              retry=False)
    with pytest.raises(RuntimeError, match="broke"):
        asyncio.run(run_chat(cast(Any, container), args, io.StringIO(), io.StringIO()))
    assert container.sessions.purged == ["s-new"]
