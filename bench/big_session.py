"""Benchmark: a 20,000-message uncompacted session against small ones, this checkout beside a baseline checkout.

In one run, whole processes alternated run by run (medians; ratios pair by pair):
- `palimpsest sessions context` of the 20,000-message session against a 4-message session (target: ≤ 1.2×);
- `palimpsest sessions show --json` of the big session against its text form: peak memory (target: ≤ 1.2×), CPU;
- the desktop app opening the big session against an empty one, to everything settled (target: within 200 ms);
each for this checkout and for `--baseline` (another checkout of Palimpsest, e.g. the main one), same store.
The session is one chain of messages (bench/load_store.py's generator), none compacted.
Run: .venv/bin/python -m bench.big_session [--baseline /path/to/checkout] [--runs 5] [--desktop-only]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path

from bench.load_cli import ROOT, cli_env
from bench.load_store import BIG, _messages, _Text, insert_session
from bench.process_runs import Run, alternate, load_average, med, ratio

RESULTS = ROOT / "bench" / "results" / "big_session.md"


def build(home: Path) -> dict[str, str]:
    """A store with the big session, a 4-message one and an empty one; their ids by name."""
    from data.storage import Storage

    rng = random.Random(7)
    text = _Text(rng)
    ids = {name: uuid.UUID(int=rng.getrandbits(128)).hex for name in ("big", "small", "empty")}
    storage = Storage.open(home)
    try:
        agent = storage.agents.default()
        engine = storage._db.engine  # bench code: bulk inserts beside the repositories
        start = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
        for name, size in (("big", BIG), ("small", 4), ("empty", 0)):
            rows = list(_messages(text, ids[name], size, start, set()))
            insert_session(engine, agent.id, ids[name], f"The {name} session", rows)
    finally:
        storage.close()
    return ids


def _cli(checkout: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "app.main", *args]


def _env(checkout: Path, home: Path, pycache: Path) -> dict[str, str]:
    return {**cli_env(home, pycache / checkout.name), "PYTHONPATH": str(checkout)}


def _gui_open(checkout: Path, env: dict[str, str], session_id: str) -> float:
    """Settled time (ms) of one cold open in a new desktop process."""
    script = ROOT / "bench" / "load_gui.py"  # this checkout's measure, the measured checkout's app
    out = subprocess.run([sys.executable, str(script), "open", session_id], env=env, cwd=checkout,
                         check=True, capture_output=True, text=True, timeout=600).stdout
    return float(json.loads(out.strip().splitlines()[-1])["settled_ms"])


def _cpu(runs: list[Run]) -> str:
    return f"{med([r.cpu for r in runs]) * 1000:,.0f} ms CPU"


def measure(checkouts: dict[str, Path], home: Path, ids: dict[str, str], pycache: Path, runs: int,
            desktop_only: bool = False) -> list[str]:
    """The report's table rows."""
    rows = []
    for label, checkout in checkouts.items():
        env = _env(checkout, home, pycache)
        if desktop_only:
            rows.append(_desktop_row(label, checkout, env, ids, runs))
            continue
        big, small = alternate([(_cli(checkout, "sessions", "context", ids[n]), env, checkout)
                                for n in ("big", "small")], runs)
        rows.append(f"| {label} | `sessions context`, {BIG:,} messages vs 4 (whole process) | {_cpu(big)} vs "
                    f"{_cpu(small)}; wall {med([r.wall for r in big]) * 1000:,.0f} vs "
                    f"{med([r.wall for r in small]) * 1000:,.0f} ms | {ratio(big, small, 'wall'):.2f}× wall, "
                    f"{ratio(big, small, 'cpu'):.2f}× CPU | ≤ 1.2× |")
        as_json, as_text = alternate([(_cli(checkout, "sessions", "show", *flag, ids["big"]), env, checkout)
                                      for flag in (("--json",), ())], runs)
        rows.append(f"| {label} | `sessions show --json` vs text, {BIG:,} messages | "
                    f"{med([r.peak_mib for r in as_json]):,.0f} vs {med([r.peak_mib for r in as_text]):,.0f} MiB; "
                    f"{_cpu(as_json)} vs {_cpu(as_text)} | {ratio(as_json, as_text, 'peak_mib'):.2f}× memory, "
                    f"{ratio(as_json, as_text, 'cpu'):.2f}× CPU | ≤ 1.2× memory |")
        rows.append(_desktop_row(label, checkout, env, ids, max(1, runs // 2)))
    return rows


def _desktop_row(label: str, checkout: Path, env: dict[str, str], ids: dict[str, str], opens_each: int) -> str:
    opens: dict[str, list[float]] = {n: [] for n in ("big", "empty")}
    for _ in range(opens_each):
        for name in opens:
            opens[name].append(_gui_open(checkout, env, ids[name]))
    return (f"| {label} | desktop: open the {BIG:,}-message session vs an empty one, to settled | "
            f"{med(opens['big']):,.0f} vs {med(opens['empty']):,.0f} ms | "
            f"+{med(opens['big']) - med(opens['empty']):,.0f} ms | ≤ +200 ms |")


def main(argv: list[str] | None = None) -> int:
    """Builds the store, measures both checkouts, prints and writes the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.big_session", description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout to measure beside this one")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--desktop-only", action="store_true", help="only the desktop opens (--runs of each)")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="palimpsest-big-"))
    home = work / "home"
    home.mkdir()
    checkouts = {"this checkout": ROOT}
    if args.baseline:
        checkouts = {"baseline": args.baseline.resolve(), **checkouts}
    before = load_average()
    try:
        ids = build(home)
        rows = measure(checkouts, home, ids, work / "pycache", args.runs, args.desktop_only)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    opens = args.runs if args.desktop_only else max(1, args.runs // 2)
    report = "\n".join([
        f"Medians of {args.runs} alternated runs (desktop opens: {opens}); load average {before} at "
        f"the start, {load_average()} at the end.", "",
        "| checkout | measure | result | ratio | target |", "|---|---|--:|--:|--:|", *rows]) + "\n"
    print(report)
    results = RESULTS.with_name("big_session_desktop.md") if args.desktop_only else RESULTS
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text("# Big session benchmark\n\n`.venv/bin/python -m bench.big_session`\n\n" + report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
