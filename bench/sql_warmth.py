"""Benchmark: what one stored message costs the app's thread when the processor's caches are warm and when they are not.

A turn's writes (the user's message, then the reply) run between long stretches of other work: the SDK building the
request and parsing the stream, the event loop waiting on the socket. This stores messages through the app's own
repository (`storage.messages.add`: one transaction, the insert with its triggers and the session's upkeep) into a
copy of the replay's 10,000-message session, in three ways taken in turn, and reports the median thread CPU time of a
store in each, side by side in one run:

- back to back: one store right after the other (everything SQLite touches stays in the caches);
- after a sleep: the thread sleeps 2 ms before each store, as it does while a reply streams in;
- after other work: 16 MiB of memory are written before each store (about what the SDK's work between two of a
  turn's stores touches pushes SQLite's pages and code out of the caches).

With `--kept-path`, the session's whole path (10,000 messages) is read through the store first, as a turn's context
load reads an uncompacted session: the store's memo keeps that read, and each store adds its message to it.

Run: .venv/bin/python -m bench.sql_warmth [--stores 300] [--kept-path] — prints a Markdown table.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from pathlib import Path

from bench.replay import MODELS
from bench.replay_preload import build_preloaded, copy_store
from data.storage import DB_NAME, Storage
from domain.models import Message, MessageType

SLEEP_S = 0.002
EVICT_BYTES = 16 << 20
WARM_UP = 30
LEAF = "SELECT id FROM messages WHERE session_id = ? AND active = 1 ORDER BY seq DESC LIMIT 1"


def measure(stores: int, kept_path: bool = False) -> dict[str, list[float]]:
    """Thread CPU microseconds of each store, by way of storing (the ways taken in turn, store after store)."""
    buffer = bytearray(EVICT_BYTES)
    zeros = bytes(EVICT_BYTES // 64)

    def evict() -> None:
        buffer[::64] = zeros  # one byte in every cache line

    ways: dict[str, Callable[[], None]] = {
        "back to back": lambda: None,
        f"after a {SLEEP_S * 1000:.0f} ms sleep": lambda: time.sleep(SLEEP_S),
        f"after writing {EVICT_BYTES >> 20} MiB": evict,
    }
    spent: dict[str, list[float]] = {name: [] for name in ways}
    with tempfile.TemporaryDirectory(prefix="palimpsest-warmth-") as tmp:
        work = Path(tmp)
        session_id = build_preloaded(work / "template", 10_000, provider_id="anthropic",
                                     model_id=MODELS["anthropic"][0])
        copy_store(work / "template", work / "home")
        with closing(sqlite3.connect(work / "home" / DB_NAME)) as con:  # the newest message, read past the store: its
            parent = con.execute(LEAF, (session_id,)).fetchone()[0]  # reads are kept up to date with every insert
        storage = Storage.open(work / "home")
        try:
            if kept_path:
                storage.messages.since(session_id, 0)
            for i in range(WARM_UP + stores):
                for name, before in ways.items():
                    message = Message(id=uuid.uuid4().hex, session_id=session_id,
                                      type=MessageType.USER if i % 2 else MessageType.AI_RESPONSE,
                                      content="A reply of a few sentences, as a turn stores them. " * 6,
                                      parent_id=parent)
                    before()
                    started = time.thread_time()
                    storage.messages.add(message)
                    took = time.thread_time() - started
                    parent = message.id
                    if i >= WARM_UP:
                        spent[name].append(took * 1e6)
        finally:
            storage.close()
    return spent


def report(spent: Mapping[str, Sequence[float]], command: str) -> str:
    """The Markdown table: median and quartiles of each way, and its median over the first way's."""
    base = statistics.quantiles(next(iter(spent.values())), n=4)[1]
    lines = [f"`{command}`: thread CPU time of one `storage.messages.add` into the replay's 10,000-message session.",
             "", "| stored | median µs | quartiles µs | × back to back |", "|---|---|---|---|"]
    for name, values in spent.items():
        q1, median, q3 = statistics.quantiles(values, n=4)
        lines.append(f"| {name} | {median:.0f} | {q1:.0f}–{q3:.0f} | {median / base:.2f} |")
    return "\n".join([*lines, ""])


def main(argv: Sequence[str] | None = None) -> int:
    """Measures and prints the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.sql_warmth")
    parser.add_argument("--stores", type=int, default=300, help="stores measured in each way (default 300)")
    parser.add_argument("--kept-path", action="store_true", help="read the whole path through the store first")
    args = parser.parse_args(argv)
    command = ("python -m bench.sql_warmth" + (f" --stores {args.stores}" if args.stores != 300 else "")
               + (" --kept-path" if args.kept_path else ""))
    print(report(measure(args.stores, args.kept_path), command))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
