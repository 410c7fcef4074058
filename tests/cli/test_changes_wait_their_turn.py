"""Changes to a conversation made outside a turn wait for the turn running in it, across real `palimpsest`
processes: compact (refused, or queued with --wait), reset-context, fork and an import that adds to it are refused
with the same clear error a second sender gets, and every reply still hangs under its question. (The commands before
and after the stream, which no turn is in the way of, run in-process.)"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli import test_one_turn_at_a_time as turns
from tests.cli.harness import Cli, CliResult
from tests.cli.test_one_turn_at_a_time import (
    EchoBrain,
    _finish,
    _finish_stream,
    _first,
    _misplaced,
    _popen,
    _streaming,
    _tree,
)
from tests.fakeservers.server import FakeProviderServer

World = tuple[Cli, EchoBrain, FakeProviderServer]
world = turns.world  # the fixture: a fake Anthropic server answering `re: <question>`, slowly for "slow" ones


def _refused(cli: Cli, words: str, *args: str) -> None:
    done = cli.run(*args)
    assert done.code == 1 and "Traceback" not in done.err, done.err
    assert "Another turn is running in this conversation" in done.err and words in done.err, done.err


def _until_waiting(proc: subprocess.Popen[str]) -> str:
    """Reads the process's standard error up to its line saying it waits for the running turn; returns what it
    read."""
    assert proc.stderr is not None
    read = ""
    for line in proc.stderr:
        read += line
        if "Waiting for another turn" in line:
            break
    return read


def test_compact_during_a_stream_is_refused_and_with_wait_runs_after_the_turn(world: World) -> None:
    cli, _, server = world
    session = _first(cli, "q0")
    streaming = _popen(cli, "chat", "-s", session, "slow question")
    _streaming(streaming)
    _refused(cli, "sessions compact --wait", "sessions", "compact", session)
    waiting = _popen(cli, "sessions", "compact", session, "--wait")
    told = _until_waiting(waiting)
    assert streaming.poll() is None  # refused, then queued, while the stream was still running
    assert _finish_stream(server, streaming).code == 0
    rest = _finish(waiting)
    queued = CliResult(rest.code, rest.out, told + rest.err)
    assert queued.code == 0, queued.err
    assert "Waiting for another turn in this conversation to finish" in queued.err
    assert queued.out.startswith(("Compacted:", "Nothing to compact")), queued.out
    assert _misplaced(cli, session) == []


def test_reset_context_and_fork_during_a_stream_are_refused(world: World) -> None:
    cli, _, server = world
    session = _first(cli, "q0")
    question = next(n["id"] for n in _tree(cli, session) if n["content"] == "q0")
    streaming = _popen(cli, "chat", "-s", session, "slow question")
    _streaming(streaming)
    _refused(cli, "Reset the context when it is done", "sessions", "reset-context", session)
    _refused(cli, "Fork it when it is done", "sessions", "fork", session, question)
    assert streaming.poll() is None  # refused while the stream was still running
    assert _finish_stream(server, streaming).code == 0
    assert len(json.loads(cli.run("sessions", "list", "--json", subprocess_run=False).out)) == 1  # no fork was made
    assert _misplaced(cli, session) == []
    assert cli.run("sessions", "fork", session, question, subprocess_run=False).code == 0  # free again once done


def test_an_import_adding_to_a_conversation_during_a_stream_is_refused_and_stores_nothing(
    world: World, tmp_path: Path,
) -> None:
    cli, _, server = world
    session = _first(cli, "q0")
    export = json.loads(cli.run("sessions", "export", session, "--format", "json", subprocess_run=False).out)
    last = export["messages"][-1]
    export["messages"].append({**last, "id": "grown-q1", "parent_id": last["id"], "type": "user",
                               "content": "a question asked elsewhere", "seq": last["seq"] + 1})
    grown = tmp_path / "grown.json"
    grown.write_text(json.dumps(export), encoding="utf-8")
    streaming = _popen(cli, "chat", "-s", session, "slow question")
    _streaming(streaming)
    _refused(cli, "Import it again when it is done", "import", "palimpsest", str(grown))
    assert streaming.poll() is None  # refused while the stream was still running
    assert _finish_stream(server, streaming).code == 0
    assert "a question asked elsewhere" not in [n["content"] for n in _tree(cli, session)]
    assert _misplaced(cli, session) == []
    after = cli.run("import", "palimpsest", str(grown), subprocess_run=False)
    assert after.code == 0 and "gained new messages" in after.out, after.err
