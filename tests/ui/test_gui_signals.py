"""SIGTERM and SIGHUP close the real desktop app like its close button: the reply that was streaming is kept."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from data.storage import Storage
from domain.models import MessageType
from tests.cli.harness import ROOT, Cli
from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import Reply, ScriptedBrain

KEY = "sk-ant-gui-signal-77aa"
WORDS = " ".join(f"word{i:04d}" for i in range(600))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_closes_the_app_and_keeps_the_streaming_reply(tmp_path: Path, signum: int) -> None:
    (tmp_path / "keychain").mkdir()
    brain = ScriptedBrain(default=Reply.of_text(WORDS, chunk=30))
    with FakeAnthropicServer(brain, api_key=KEY) as server:
        server.chunk_pause = 0.05  # about 10 s of streaming
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")
        assert cli.run("providers", "set", "anthropic", "--base-url", server.base_url, subprocess_run=False).code == 0
        assert cli.run("keys", "set", "anthropic", stdin=KEY + "\n", subprocess_run=False).code == 0
        env = {**cli.env, "QT_QPA_PLATFORM": "offscreen"}
        child = subprocess.Popen([sys.executable, "-m", "tests.ui.gui_signal_child"], env=env, cwd=ROOT,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while not any(r.stream for r in brain.seen):
                assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
                assert time.monotonic() < deadline, "the app never sent its message"
                time.sleep(0.05)
            time.sleep(1.5)  # some of the reply has streamed and been shown
            os.kill(child.pid, signum)
            code = child.wait(30)
        finally:
            if child.poll() is None:
                child.kill()
        stderr = child.stderr.read().decode() if child.stderr else ""
    assert code == 128 + signum, stderr
    assert "Traceback" not in stderr
    storage = Storage.open(tmp_path / "home")
    try:
        (session,) = storage.sessions.list()
        replies = [m for m in storage.messages.snapshot(session.id) if m.type is MessageType.AI_RESPONSE]
    finally:
        storage.close()
    assert len(replies) == 1 and replies[0].incomplete
    assert len(replies[0].content) > 300 and WORDS.startswith(replies[0].content)
