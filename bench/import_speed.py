"""Benchmark: `palimpsest import chatgpt` of 1,000 conversations × 50 messages as a whole process, this checkout
beside a baseline checkout: CPU, wall, peak memory, messages per CPU-second (target ≥ 5,000).

The export is generated at run time (bench/load_memory.py's ChatGPT shape) and removed after; each run imports it
into a new, empty store; the checkouts alternate run by run. Run: .venv/bin/python -m bench.import_speed
[--baseline /path/to/checkout] [--runs 3] [--conversations 1000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from bench.load_cli import ROOT, cli_env
from bench.load_memory import _conversation
from bench.process_runs import Run, load_average, med, ratio, run_once

RESULTS = ROOT / "bench" / "results" / "import_speed.md"
TURNS = 25  # 50 messages a conversation


def write_export(path: Path, conversations: int, chars: int = 600) -> int:
    """The export, written one conversation at a time (this process stays small: a child's peak memory as the kernel
    reports it starts from its parent's at the fork); returns its messages."""
    text = ("lorem ipsum dolor sit amet " * (chars // 27 + 1))[:chars]
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        for n in range(conversations):
            out.write(("," if n else "") + json.dumps(_conversation(n, TURNS, text)))
        out.write("]")
    return conversations * TURNS * 2


def main(argv: list[str] | None = None) -> int:
    """Writes the export, imports it with each checkout, prints and writes the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.import_speed", description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout to measure beside this one")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--conversations", type=int, default=1_000)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="palimpsest-import-speed-"))
    checkouts = {"this checkout": ROOT}
    if args.baseline:
        checkouts = {"baseline": args.baseline.resolve(), **checkouts}
    before = load_average()
    try:
        export = work / "conversations.json"
        messages = write_export(export, args.conversations)
        runs: dict[str, list[Run]] = {label: [] for label in checkouts}
        for n in range(args.runs + 1):  # the first round unmeasured (bytecode compiled, caches warm)
            for label, checkout in checkouts.items():
                home = work / f"home-{n}-{label.replace(' ', '-')}"
                env = {**cli_env(home, work / "pycache" / checkout.name), "PYTHONPATH": str(checkout)}
                run = run_once([sys.executable, "-m", "app.main", "import", "chatgpt", str(export)], env, checkout)
                if run.code != 0:
                    raise SystemExit(f"{label}: import exited with {run.code}")
                shutil.rmtree(home, ignore_errors=True)
                if n:
                    runs[label].append(run)
        rows = [f"| {label} | {med([r.cpu for r in rs]):,.2f} s CPU, {med([r.wall for r in rs]):,.2f} s wall | "
                f"{messages / med([r.cpu for r in rs]):,.0f} | {med([r.peak_mib for r in rs]):,.0f} MiB |"
                for label, rs in runs.items()]
        if args.baseline:
            mine, base = runs["this checkout"], runs["baseline"]
            rows.append(f"| this checkout / baseline | {ratio(mine, base, 'cpu'):.2f}× CPU, "
                        f"{ratio(mine, base, 'wall'):.2f}× wall | | {ratio(mine, base, 'peak_mib'):.2f}× |")
        size = export.stat().st_size / 1e6
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report = "\n".join([
        f"Import of a {size:.0f} MB ChatGPT export, {args.conversations:,} conversations × {TURNS * 2} messages "
        f"({messages:,}); medians of {args.runs} alternated runs; load average {before} at the start, "
        f"{load_average()} at the end.", "",
        "| checkout | time | messages per CPU-second | peak memory |", "|---|--:|--:|--:|", *rows]) + "\n"
    print(report)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("# Import speed benchmark\n\n`.venv/bin/python -m bench.import_speed`\n\n" + report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
