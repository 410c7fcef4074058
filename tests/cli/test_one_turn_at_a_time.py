"""One turn at a time per conversation, across real `palimpsest` processes: a second sender is refused (or queues
with --wait), a checkout during a stream is refused, every reply hangs under its own question, and a killed
owner's lease is taken over."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.harness import ROOT, Cli, CliResult
from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply, TextPart
from tests.fakeservers.server import FakeProviderServer

KEY = "sk-ant-one-turn-test-8c2f"
MODEL = "claude-one-turn-32k"
FILLERS = ("[no reply was recorded", "[continue]")


class EchoBrain:
    """Answers each streamed question with `re: <question>` (long ones slowly, in many chunks); titles otherwise.
    Thread-safe: the server answers requests of several processes at once."""

    def __init__(self) -> None:
        self.seen: list[NormalizedRequest] = []
        self._lock = threading.Lock()

    def respond(self, request: NormalizedRequest) -> Answer:
        with self._lock:
            self.seen.append(request)
        if not request.stream:
            return Reply.of_text("A title")
        # the newest question: a question left unanswered (its process was killed) goes in the same user turn
        question = next((p.text for m in reversed(request.messages) if m.role == "user"
                         for p in reversed(m.parts) if isinstance(p, TextPart) and p.text), "")
        return Reply.of_text(f"re: {question}" + (" ..." * 300 if "slow" in question else ""), chunk=8)


@pytest.fixture()
def world(tmp_path: Path) -> Iterator[tuple[Cli, EchoBrain, FakeProviderServer]]:
    (tmp_path / "keychain").mkdir()
    brain = EchoBrain()
    with FakeAnthropicServer(brain, api_key=KEY) as server:
        server.chunk_pause = 0.1  # a slow reply lasts about 15 s unless a test ends it sooner (_finish_stream)
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")
        assert cli.run("providers", "set", "anthropic", "--base-url", server.base_url, subprocess_run=False).code == 0
        assert cli.run("models", "add", "anthropic", MODEL, "--context-window", "32000",
                       subprocess_run=False).code == 0
        assert cli.run("keys", "set", "anthropic", stdin=KEY + "\n", subprocess_run=False).code == 0
        yield cli, brain, server


def _first(cli: Cli, text: str) -> str:
    done = cli.run("chat", "-p", "anthropic", "-m", MODEL, text, subprocess_run=False)
    assert done.code == 0, done.err
    return done.err.split("session: ")[1].split()[0]


def _tree(cli: Cli, session: str) -> list[dict[str, Any]]:
    """Every message of the session with its parent, on any branch (sessions show --json --all)."""
    from data.storage import Storage

    storage = Storage.open(cli.home)
    try:
        return [{"id": m.id, "parent_id": m.parent_id, "type": m.type.value, "content": m.content}
                for m in storage.messages.snapshot(session, include_inactive=True)]
    finally:
        storage.close()


def _misplaced(cli: Cli, session: str) -> list[str]:
    """Replies whose parent is not the question they answer."""
    nodes = _tree(cli, session)
    by_id = {n["id"]: n for n in nodes}
    asked = lambda reply: reply["content"].removeprefix("re: ").split(" ...")[0]  # noqa: E731
    return [n["content"][:40] for n in nodes if n["type"] == "ai_response"
            and by_id.get(n["parent_id"] or "", {}).get("content") != asked(n)]


def _popen(cli: Cli, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "app", *args], env=cli.env, cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")


def _streaming(proc: subprocess.Popen[str]) -> None:
    """Returns once the process printed the first piece of its reply (it holds the conversation by then)."""
    assert proc.stdout is not None
    assert proc.stdout.read(3) == "re:", "the reply did not start"


def _finish_stream(server: FakeProviderServer, proc: subprocess.Popen[str]) -> CliResult:
    """Lets the slow reply (paced to last far longer than what a test does meanwhile) send its remaining chunks at
    once, then waits for its process: the test is done with the stream once its refused commands have run."""
    server.chunk_pause = 0.0
    return _finish(proc)


def _finish(proc: subprocess.Popen[str]) -> CliResult:
    out, err = proc.communicate(timeout=120)
    return CliResult(proc.returncode, out, err)


def test_four_processes_on_one_conversation_take_turns_and_every_reply_is_under_its_question(
    world: tuple[Cli, EchoBrain, FakeProviderServer],
) -> None:
    cli, brain, _ = world
    session = _first(cli, "q0")
    procs = [subprocess.Popen(  # four senders, each running its three turns one after the other
        [sys.executable, "-c", "import subprocess, sys\n"
         f"codes = [subprocess.run([sys.executable, '-m', 'app', 'chat', '-s', {session!r}, '--wait', "
         f"'p{p}-q' + str(j)], stdout=subprocess.DEVNULL).returncode for j in range(3)]\n"
         "sys.exit(max(codes))"],
        env=cli.env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    ) for p in range(4)]
    results = [_finish(proc) for proc in procs]
    assert [r.code for r in results] == [0, 0, 0, 0], [r.err for r in results]
    assert any("Waiting for another turn in this conversation" in r.err for r in results)
    nodes = _tree(cli, session)
    assert sorted(n["content"] for n in nodes if n["type"] == "user") == sorted(
        ["q0"] + [f"p{p}-q{j}" for p in range(4) for j in range(3)])
    assert len([n for n in nodes if n["type"] == "ai_response"]) == 13
    assert _misplaced(cli, session) == []
    streamed = [r for r in brain.seen if r.stream]
    assert not [f for r in streamed for f in FILLERS if f in json.dumps(r.raw)]
    for request in streamed:  # each request is a clean alternation ending with its own question
        roles = [m.role for m in request.messages]
        assert roles == ["user", "assistant"] * (len(roles) // 2) + ["user"], roles


def test_a_second_sender_is_refused_with_a_clear_error_and_nothing_of_it_is_stored(
    world: tuple[Cli, EchoBrain, FakeProviderServer],
) -> None:
    cli, _, server = world
    session = _first(cli, "q0")
    streaming = _popen(cli, "chat", "-s", session, "slow question")
    _streaming(streaming)
    refused = cli.run("chat", "-s", session, "impatient question")
    assert refused.code == 1 and "Traceback" not in refused.err
    assert "Another turn is running in this conversation" in refused.err and "--wait" in refused.err
    assert streaming.poll() is None  # refused while the stream was still running
    assert _finish_stream(server, streaming).code == 0
    assert "impatient question" not in [n["content"] for n in _tree(cli, session)]
    assert _misplaced(cli, session) == []


def test_a_checkout_during_a_stream_is_refused_and_the_tree_stays_whole(
    world: tuple[Cli, EchoBrain, FakeProviderServer],
) -> None:
    cli, brain, server = world
    run = lambda *a: cli.run(*a, subprocess_run=False)  # noqa: E731
    session = _first(cli, "q0")
    assert run("chat", "-s", session, "q1").code == 0
    question = next(n["id"] for n in _tree(cli, session) if n["content"] == "q1")
    assert run("chat", "-s", session, "--edit", question, "q1 edited").code == 0
    other_leaf = next(n["id"] for n in _tree(cli, session) if n["content"] == "re: q1")

    streaming = _popen(cli, "chat", "-s", session, "slow question on the edited branch")
    _streaming(streaming)
    checkout = cli.run("sessions", "checkout", session, other_leaf)
    assert checkout.code != 0 and "Traceback" not in checkout.err
    assert "Another turn is running in this conversation" in checkout.err and "Switch branches" in checkout.err
    deleted = cli.run("sessions", "delete-branch", session, other_leaf)
    assert deleted.code != 0 and "Another turn is running" in deleted.err
    assert streaming.poll() is None  # both refused while the stream was still running
    assert _finish_stream(server, streaming).code == 0

    branches = json.loads(run("sessions", "branches", session, "--json").out)
    assert [b["active"] for b in branches] == [False, True]
    path = [m["content"] for m in json.loads(run("sessions", "show", session, "--json").out)["messages"]]
    assert path[:3] == ["q0", "re: q0", "q1 edited"] and path[3] == "re: q1 edited"
    assert path[4] == "slow question on the edited branch" and path[5].startswith("re: slow question")
    assert _misplaced(cli, session) == []
    assert run("sessions", "checkout", session, other_leaf).code == 0  # free again once the turn is done
    assert run("chat", "-s", session, "q2").code == 0
    last = [r for r in brain.seen if r.stream][-1]
    assert [m.text for m in last.messages] == ["q0", "re: q0", "q1", "re: q1", "q2"]


def test_the_lease_of_a_killed_owner_is_taken_over(world: tuple[Cli, EchoBrain, FakeProviderServer]) -> None:
    cli, _, _ = world
    session = _first(cli, "q0")
    doomed = _popen(cli, "chat", "-s", session, "slow question of a process that dies")
    _streaming(doomed)
    doomed.send_signal(signal.SIGKILL)
    doomed.communicate(timeout=30)  # reaped: its pid is gone
    started = time.monotonic()
    after = cli.run("chat", "-s", session, "next question")
    assert after.code == 0, after.err
    assert time.monotonic() - started < 20  # not held for the whole lease (the owner is known to be gone)
    assert [n["content"] for n in _tree(cli, session)][-2:] == ["next question", "re: next question"]
