"""Nothing shown is lost: a real `palimpsest chat` process killed or signalled mid-stream keeps the reply."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from data.storage import Storage
from domain.models import MessageType
from tests.cli.harness import ROOT, Cli
from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import Reply, ScriptedBrain

KEY = "sk-ant-signal-test-5d1e"
MODEL = "claude-signal-8k"
WORDS = " ".join(f"word{i:04d}" for i in range(600))  # 6,000 characters, streamed slowly


class Reader:
    """Reads a process's stdout on a thread, remembering when each piece arrived."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.pieces: list[tuple[float, str]] = []
        self._proc = proc
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        while chunk := self._proc.stdout.read1(4096):  # type: ignore[attr-defined]
            self.pieces.append((time.monotonic(), chunk.decode("utf-8", "replace")))

    def text(self, before: float | None = None) -> str:
        return "".join(p for at, p in self.pieces if before is None or at <= before)

    def wait_for(self, chars: int, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while len(self.text()) < chars:
            assert time.monotonic() < deadline, f"only {len(self.text())} characters arrived"
            time.sleep(0.02)


@pytest.fixture()
def cli(tmp_path: Path) -> Iterator[Cli]:
    (tmp_path / "keychain").mkdir()
    brain = ScriptedBrain(default=Reply.of_text(WORDS, chunk=30))
    with FakeAnthropicServer(brain, api_key=KEY) as server:
        server.chunk_pause = 0.05  # 200 chunks: about 10 s of streaming
        c = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")
        assert c.run("providers", "set", "anthropic", "--base-url", server.base_url, subprocess_run=False).code == 0
        assert c.run("models", "add", "anthropic", MODEL, "--context-window", "8192", subprocess_run=False).code == 0
        assert c.run("keys", "set", "anthropic", stdin=KEY + "\n", subprocess_run=False).code == 0
        yield c


def _start(cli: Cli) -> tuple[subprocess.Popen[bytes], Reader]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "chat", "-p", "anthropic", "-m", MODEL, "Tell me a long story"],
        env=cli.env, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    return proc, Reader(proc)


def _stored_reply(cli: Cli) -> tuple[str, bool]:
    storage = Storage.open(cli.home)
    try:
        (session,) = storage.sessions.list()
        replies = [m for m in storage.messages.snapshot(session.id) if m.type is MessageType.AI_RESPONSE]
        assert len(replies) == 1, replies
        return replies[0].content, replies[0].incomplete
    finally:
        storage.close()


def test_sigkill_mid_stream_loses_at_most_the_last_second_of_text(cli: Cli) -> None:
    proc, reader = _start(cli)
    reader.wait_for(1_500)
    time.sleep(0.5)
    killed_at = time.monotonic()
    proc.kill()
    proc.wait(10)
    shown = reader.text()
    content, incomplete = _stored_reply(cli)
    assert incomplete and shown.startswith(content)
    assert len(content) >= len(reader.text(before=killed_at - 1.2))  # at most about a second behind the screen


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_stop_like_ctrl_c_and_keep_everything_shown(cli: Cli, signum: int) -> None:
    proc, reader = _start(cli)
    reader.wait_for(900)
    os.kill(proc.pid, signum)
    code = proc.wait(20)
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    assert code == 128 + signum, stderr
    assert "Traceback" not in stderr
    content, incomplete = _stored_reply(cli)
    shown = reader.text()
    assert incomplete and len(content) >= 900 and shown.startswith(content.rstrip())
    assert len(shown) - len(content) < 100  # everything shown is kept (the last chunk may not have been printed)
