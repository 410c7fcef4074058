"""Benchmark: Palimpsest under load — 1,000 sessions, 200,000 messages, one session of 20,000 messages.

Measures in one run (medians of several repetitions): `palimpsest sessions show` of the big session, opening sessions
cold in the desktop app (a new process per open), full-text search from the CLI and the desktop app, the longest
GUI-thread pause while opening the big session and while searching, CLI start-up, the peak memory (RSS) of
importing a 200 MB export and a 1 GiB zip bomb (bench/load_memory.py; both generated at run time, never kept), and
4 processes × 50 turns on one conversation through the turn lease (bench/load_turns.py: lost and misplaced replies,
wait times).
Prints a Markdown table of each result against its target and writes it to bench/results/load.md.

The store is built once (about a minute) and cached in --cache (default: <tmp>/palimpsest-load-bench); every run
measures on a fresh copy of it. Run: .venv/bin/python -m bench.load
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from bench.load_cli import ROOT, cli_env, in_process_ms, median, wall_ms
from bench.load_memory import memory_rows
from bench.load_store import BIG, MESSAGES, SESSIONS, LoadStore, cached_store, working_copy
from bench.load_turns import turn_rows

RESULTS = ROOT / "bench" / "results" / "load.md"
Row = tuple[str, str, str, str]  # what, result, target, met


def _gui(store: LoadStore, pycache: Path, *args: str) -> dict[str, Any]:
    """Runs bench.load_gui in a new process and returns its JSON result."""
    env = cli_env(store.home, pycache)
    out = subprocess.run([sys.executable, "-m", "bench.load_gui", *args], env=env, cwd=ROOT, check=True,
                         capture_output=True, text=True, timeout=600).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def _matches(store: LoadStore, word: str) -> str:
    """How many messages the search for a word matches (as a prefix, like the app searches)."""
    with closing(sqlite3.connect(store.home / "palimpsest.db")) as db:
        count = db.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", (f'"{word}"*',)).fetchone()
    return f"{count[0]:,} matching messages"


def _verdict(value: float, target: float) -> str:
    return "met" if value <= target else "**not met**"


def _pauses(values: Sequence[float]) -> str:
    return f"median {median(list(values)):,.0f} ms, worst {max(values):,.0f} ms"


def _all_within(values: Sequence[float], target: float, what: str) -> str:
    within = sum(v <= target for v in values)
    return "met" if within == len(values) else f"**not met** ({within} of {len(values)} {what} within)"


def _ms(values: Sequence[float]) -> str:
    return f"{median(list(values)):,.0f} ms"


def measure(store: LoadStore, pycache: Path, runs: int) -> list[Row]:
    """Every measurement, as table rows."""
    rows: list[Row] = []
    env = cli_env(store.home, pycache)
    queries = [store.rare_word, store.middle_word, store.common_word]
    # (a) sessions show of the 20,000-message session
    show = wall_ms(["sessions", "show", store.big_id], env, runs)
    show_in = in_process_ms(store.home, ["sessions", "show", store.big_id], runs)
    rows.append((f"`palimpsest sessions show` of the {BIG:,}-message session, wall time", _ms(show), "—", ""))
    rows.append(("  the same, beyond start-up (in-process, fresh Container)", _ms(show_in), "≤ 200 ms",
                 _verdict(median(show_in), 200)))
    # (b) + (d) opening sessions cold in the desktop app
    opened = (store.big_id, *store.ordinary_ids)
    opens = {sid: [_gui(store, pycache, "open", sid) for _ in range(runs)] for sid in opened}
    big = opens[store.big_id]
    ordinary = [r for sid in store.ordinary_ids for r in opens[sid]]
    for label, results in ((f"the {BIG:,}-message session", big), ("ordinary sessions (80–400 messages)", ordinary)):
        paint = [float(r["first_paint_ms"]) for r in results]
        settled = [float(r["settled_ms"]) for r in results]
        rows.append((f"desktop: open {label} cold, to first paint of its messages", _ms(paint), "≤ 200 ms",
                     _verdict(median(paint), 200)))
        rows.append(("  to everything settled (exact row heights, context gauge, usage)", _ms(settled), "—", ""))
    pause_open = [float(r["pause_ms"]) for r in big]
    rows.append((f"desktop: longest GUI-thread pause while opening the {BIG:,}-message session",
                 _pauses(pause_open), "≤ 50 ms", _all_within(pause_open, 50, "opens")))
    # (c) + (d) full-text search
    for word in queries:
        cli = in_process_ms(store.home, ["sessions", "search", word], runs)
        rows.append((f"`palimpsest sessions search {word}` ({_matches(store, word)}), beyond start-up", _ms(cli),
                     "≤ 100 ms", _verdict(median(cli), 100)))
    rows.append(("`palimpsest sessions search` (the common word), wall time",
                 _ms(wall_ms(["sessions", "search", store.common_word], env, runs)), "—", ""))
    searches = [_gui(store, pycache, "search", *queries) for _ in range(runs)]
    gui_times = [t for r in searches for t in r["search_ms"]]
    gui_worst = [max(r["search_ms"]) for r in searches]
    pause_search = [p for r in searches for p in r["pause_ms"]]
    rows.append(("desktop: search, to hits in the sidebar (all three words)", _ms(gui_times), "≤ 100 ms",
                 _verdict(median(gui_times), 100)))
    rows.append(("  the slowest word (the common one)", _ms(gui_worst), "≤ 100 ms", _verdict(median(gui_worst), 100)))
    rows.append(("desktop: longest GUI-thread pause while searching (each word, each run)",
                 _pauses(pause_search), "≤ 50 ms", _all_within(pause_search, 50, "searches")))
    # (e) start-up
    for args in (["keys", "status"], ["--help"]):
        times = wall_ms(args, env, 7)
        rows.append((f"start-up: `palimpsest {' '.join(args)}`, wall time (median of 7)", _ms(times), "≤ 250 ms",
                     _verdict(median(times), 250)))
    cold = wall_ms(["keys", "status"], cli_env(store.home, None), 7)
    rows.append(("  `keys status` without any bytecode cache (every module compiled at start)", _ms(cold), "—", ""))
    # (f) memory: peak RSS of importing a 200 MB export and a 1 GiB zip bomb (generated now, removed after)
    rows += memory_rows(200)
    # (g) one conversation, four writers: 4 processes × 50 turns queued through the turn lease
    rows += turn_rows(4, 50)
    return rows


def render(rows: list[Row], runs: int, load: str = "") -> str:
    """The Markdown report (`load`: the machine's load averages while it ran)."""
    lines = [
        f"Store: {SESSIONS:,} sessions, {MESSAGES:,} messages (one session of {BIG:,}, none compacted); "
        f"medians of {runs} runs unless noted; Python {platform.python_version()}, {os.cpu_count()} cores{load}.",
        "",
        "| measure | result | target | |",
        "|---|--:|--:|---|",
        *(f"| {what} | {result} | {target} | {met} |" for what, result, target, met in rows),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Builds (or reuses) the store, measures, prints and writes the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "palimpsest-load-bench",
                        help="where the store is built once and kept")
    parser.add_argument("--runs", type=int, default=5, help="repetitions of each measurement")
    args = parser.parse_args(argv)
    cached = cached_store(args.cache)
    work = Path(tempfile.mkdtemp(prefix="palimpsest-load-"))
    before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    try:
        store = working_copy(cached, work / "home")
        rows = measure(store, args.cache / "pycache", args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load = f", load average {before:.1f} at the start and {os.getloadavg()[0]:.1f} at the end" \
        if before is not None else ""
    report = render(rows, args.runs, load)
    print(report)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("# Load benchmark\n\n`.venv/bin/python -m bench.load`\n\n" + report)
    print(f"written to {RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
