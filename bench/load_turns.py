"""The load benchmark's contention run: 4 processes × 50 turns on ONE conversation, against the fake Anthropic server.

Each process opens its own Container on the same store and sends its 50 questions one after the other with
`wait=True` (as `palimpsest chat -s S --wait` and the desktop app do), so the four queue behind each other through
the turn lease. Afterwards the store is checked: every question stored once with one reply (0 lost), each reply's
parent its own question (0 misplaced), no filler in any request ("[no reply was recorded…]", "[continue]"), each
request a clean user/assistant alternation; and the time each turn waited for the others is reported.
Run: .venv/bin/python -m bench.load_turns [--processes 4] [--turns 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.load_cli import ROOT

RESULTS = ROOT / "bench" / "results" / "load_turns.md"
KEY = "sk-ant-load-turns-5b0c"
MODEL = "claude-load-turns"
FILLERS = ("[no reply was recorded", "[continue]")


def _env(home: Path) -> dict[str, str]:
    return dict(os.environ, PALIMPSEST_HOME=str(home), ANTHROPIC_API_KEY=KEY, PYTHONPATH=str(ROOT),
                PYTHON_KEYRING_BACKEND="tests.memory_keyring.MemoryKeyring")


async def _worker(session_id: str, name: str, turns: int) -> list[dict[str, Any]]:
    """Sends `turns` questions in this process, one after the other, each waiting its turn; one record per turn."""
    from app.container import Container
    from domain.events import ChatError, Notice

    container = Container.build()
    records = []
    try:
        for j in range(turns):
            question = f"{name}-q{j:03d}"
            start = time.perf_counter()
            waited, errors = 0.0, []
            async for event in container.send_message(session_id, question, wait=True):
                if isinstance(event, Notice) and event.message.startswith("The other turn is done"):
                    waited = time.perf_counter() - start
                elif isinstance(event, ChatError):
                    errors.append(event.message)
            records.append({"question": question, "waited_s": waited, "turn_s": time.perf_counter() - start,
                            "errors": errors})
    finally:
        await container.aclose_adapters()
        container.close()
    return records


class _Echo:
    """Answers `re: <question>` in five chunks (streamed with the server's pause between them); titles otherwise."""

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def respond(self, request: Any) -> Any:
        from tests.fakeservers.brain import Reply

        if not request.stream or request.last_user_text.startswith("Write a title"):  # the title (streamed or not)
            return Reply.of_text("Contention run")
        text = f"re: {request.last_user_text}"
        return Reply.of_text(text, chunk=max(1, len(text) // 5 + 1))


def _check(home: Path, session_id: str, requests: list[Any], expected: list[str]) -> dict[str, Any]:
    """Lost and misplaced replies, fillers and broken alternations, from the store and the server's log."""
    from data.storage import Storage
    from domain.models import MessageType

    storage = Storage.open(home)
    try:
        nodes = list(storage.messages.snapshot(session_id, include_inactive=True))
    finally:
        storage.close()
    by_id = {m.id: m for m in nodes}
    questions = [m.content for m in nodes if m.type is MessageType.USER]
    replies = [m for m in nodes if m.type is MessageType.AI_RESPONSE]
    answered = {m.content.removeprefix("re: ") for m in replies}
    misplaced = [m.content for m in replies
                 if m.parent_id is None or by_id[m.parent_id].content != m.content.removeprefix("re: ")]
    streamed = [r for r in requests if r.stream]
    fillers = sum(1 for r in streamed for f in FILLERS if f in json.dumps(r.raw))
    broken = sum(1 for r in streamed
                 if [m.role for m in r.messages] != ["user", "assistant"] * (len(r.messages) // 2) + ["user"])
    return {"questions_stored": sum(q in questions for q in expected), "replies": len(replies) - 1,
            "lost": sum(q not in questions or q not in answered for q in expected), "misplaced": len(misplaced),
            "fillers": fillers, "broken_requests": broken,
            "requests": sum(r.last_user_text in expected for r in streamed),
            "duplicates": len(questions) - len(set(questions))}


def run(processes: int, turns: int, chunk_pause: float) -> dict[str, Any]:
    """The whole run; returns its numbers."""
    from tests.fakeservers.anthropic_server import FakeAnthropicServer

    work = Path(tempfile.mkdtemp(prefix="palimpsest-turns-"))
    home = work / "home"
    env = _env(home)
    palimpsest = [sys.executable, "-m", "app"]
    try:
        with FakeAnthropicServer(_Echo(), api_key=KEY) as server:
            server.chunk_pause = chunk_pause
            for args in (["providers", "set", "anthropic", "--base-url", server.base_url],
                         ["models", "add", "anthropic", MODEL, "--context-window", "1000000"]):
                subprocess.run([*palimpsest, *args], env=env, cwd=ROOT, check=True, capture_output=True)
            first = subprocess.run([*palimpsest, "chat", "-p", "anthropic", "-m", MODEL, "q-first"], env=env,
                                   cwd=ROOT, check=True, capture_output=True, text=True)
            session_id = first.stderr.split("session: ")[1].split()[0]
            start = time.perf_counter()
            workers = [subprocess.Popen([sys.executable, "-m", "bench.load_turns", "--worker", session_id,
                                         f"p{p}", str(turns)], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                        text=True) for p in range(processes)]
            records = [r for w in workers for r in json.loads(w.communicate(timeout=3600)[0].splitlines()[-1])]
            wall = time.perf_counter() - start
            expected = [f"p{p}-q{j:03d}" for p in range(processes) for j in range(turns)]
            checked = _check(home, session_id, list(server.requests), expected)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    waits = sorted(r["waited_s"] for r in records)
    queued = [w for w in waits if w > 0]
    return {
        "processes": processes, "turns": turns, "wall_s": wall, "errors": sum(len(r["errors"]) for r in records),
        "turns_waited": len(queued), "wait_median_s": statistics.median(queued) if queued else 0.0,
        "wait_p90_s": queued[int(len(queued) * 0.9)] if queued else 0.0, "wait_max_s": max(waits),
        "turn_median_s": statistics.median(r["turn_s"] for r in records), **checked,
    }


def render(result: dict[str, Any], chunk_pause: float) -> str:
    """The Markdown report."""
    n = result["processes"] * result["turns"]
    rows = [
        ("turns sent", f"{n:,} ({result['processes']} processes × {result['turns']}, one conversation)", "—"),
        ("questions stored / replies stored", f"{result['questions_stored']:,} / {result['replies']:,}",
         f"{n:,} / {n:,}"),
        ("lost (a question missing, or without its reply)", str(result["lost"]), "0"),
        ("misplaced replies (parent not its own question)", str(result["misplaced"]), "0"),
        ("requests with a filler ([no reply was recorded…], [continue])", str(result["fillers"]), "0"),
        ("requests not a clean user/assistant alternation", str(result["broken_requests"]), "0"),
        ("errors reported to a sender", str(result["errors"]), "0"),
        ("turns that had to wait for another", f"{result['turns_waited']:,} of {n:,}", "—"),
        ("wait, when waiting: median / p90 / max",
         f"{result['wait_median_s']:.2f} / {result['wait_p90_s']:.2f} / {result['wait_max_s']:.2f} s", "—"),
        ("a turn, waiting included (median)", f"{result['turn_median_s']:.2f} s", "—"),
        ("wall time of the run", f"{result['wall_s']:.1f} s", "—"),
    ]
    return "\n".join([
        f"{result['processes']} processes × {result['turns']} turns on one conversation, each process its own "
        f"Container on one store, `wait=True` (as `chat --wait` and the desktop app); fake Anthropic server, replies "
        f"of 5 chunks {chunk_pause * 1000:.0f} ms apart; {os.cpu_count()} cores"
        + (f", {result['load']}" if "load" in result else "") + ".",
        "", "| measure | result | target |", "|---|--:|--:|",
        *(f"| {what} | {value} | {target} |" for what, value, target in rows),
    ]) + "\n"


def turn_rows(processes: int = 4, turns: int = 50, chunk_pause: float = 0.02) -> list[tuple[str, str, str, str]]:
    """The contention run as rows of bench.load's table (what, result, target, met)."""
    r = run(processes, turns, chunk_pause)
    n = processes * turns
    zero = lambda value: "met" if value == 0 else "**not met**"  # noqa: E731
    head = f"{processes} processes × {turns} turns on one conversation (`--wait`)"
    return [
        (f"{head}: questions / replies stored", f"{r['questions_stored']:,} / {r['replies']:,}", f"{n:,} / {n:,}",
         "met" if r["questions_stored"] == r["replies"] == n else "**not met**"),
        ("  lost (a question missing, or without its reply)", str(r["lost"]), "0", zero(r["lost"])),
        ("  misplaced replies (parent not its own question)", str(r["misplaced"]), "0", zero(r["misplaced"])),
        ("  requests with a filler, or not a clean alternation", f"{r['fillers']} / {r['broken_requests']}", "0 / 0",
         zero(r["fillers"] + r["broken_requests"])),
        ("  errors reported to a sender", str(r["errors"]), "0", zero(r["errors"])),
        (f"  wait for another turn ({r['turns_waited']} of {n} waited): median / p90 / max",
         f"{r['wait_median_s']:.2f} / {r['wait_p90_s']:.2f} / {r['wait_max_s']:.2f} s", "—", ""),
        ("  a turn, waiting included (median); wall time of the run",
         f"{r['turn_median_s']:.2f} s; {r['wall_s']:.0f} s", "—", ""),
    ]


def main(argv: list[str] | None = None) -> int:
    """Runs the contention run (or, with --worker, one of its processes)."""
    parser = argparse.ArgumentParser(prog="python -m bench.load_turns", description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=3, metavar=("SESSION", "NAME", "TURNS"), help=argparse.SUPPRESS)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--turns", type=int, default=50, help="turns per process")
    parser.add_argument("--chunk-pause", type=float, default=0.02, help="seconds between a reply's chunks")
    args = parser.parse_args(argv)
    if args.worker:
        session_id, name, turns = args.worker
        print(json.dumps(asyncio.run(_worker(session_id, name, int(turns)))))
        return 0
    before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    result = run(args.processes, args.turns, args.chunk_pause)
    if before is not None:
        result["load"] = f"load average {before:.1f} at the start and {os.getloadavg()[0]:.1f} at the end"
    report = render(result, args.chunk_pause)
    print(report)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("# Load benchmark: one conversation, four writers\n\n`.venv/bin/python -m bench.load_turns`"
                       "\n\n" + report)
    print(f"written to {RESULTS}")
    ok = result["lost"] == result["misplaced"] == result["fillers"] == result["broken_requests"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
