"""Benchmark: one `palimpsest chat` turn as a whole process, against a local fake OpenAI-compatible server, beside a
baseline checkout and beside simonw's `llm` prompting the same server; and the start-up of `sessions list` against
`keys status`.

In one run, the commands alternated run by run (medians; ratios pair by pair), CPU = user + sys of the process.
Targets: a turn ≤ 0.6× the baseline's CPU and ≤ `llm`'s. `llm` comes from --llm (a venv's `llm` script,
e.g. one made with `python -m venv /tmp/llmvenv && /tmp/llmvenv/bin/pip install llm`); without it that row is left out.
Run: .venv/bin/python -m bench.cli_turn [--baseline /path/to/checkout] [--llm /tmp/llmvenv/bin/llm] [--runs 7]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.load_cli import ROOT, cli_env
from bench.process_runs import Run, alternate, load_average, med, ratio
from tests.fakeservers.brain import Reply, ScriptedBrain
from tests.fakeservers.openai_server import FakeOpenAIServer

RESULTS = ROOT / "bench" / "results" / "cli_turn.md"
MODEL = "gpt-test-1"


def _palimpsest(checkout: Path, home: Path, pycache: Path) -> tuple[list[str], dict[str, str]]:
    env = {**cli_env(home, pycache / checkout.name), "PYTHONPATH": str(checkout)}
    return [sys.executable, "-m", "app.main"], env


def _llm_env(folder: Path, base_url: str) -> dict[str, str]:
    """`llm`'s own folder with the fake server as an extra OpenAI-compatible model named `fake`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "extra-openai-models.yaml").write_text(
        f"- model_id: fake\n  model_name: {MODEL}\n  api_base: \"{base_url}\"\n")
    import os

    return dict(os.environ, LLM_USER_PATH=str(folder), OPENAI_API_KEY="sk-fake-bench")


def _cpu(runs: list[Run]) -> str:
    return f"{med([r.cpu for r in runs]) * 1000:,.0f} ms CPU, {med([r.wall for r in runs]) * 1000:,.0f} ms wall"


def main(argv: list[str] | None = None) -> int:
    """Starts the fake server, sets each store up, measures, prints and writes the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.cli_turn", description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout to measure beside this one")
    parser.add_argument("--llm", type=Path, help="simonw's llm script to measure beside")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    server = FakeOpenAIServer(ScriptedBrain(default=Reply.of_text("Hello! How can I help you today?")),
                              models=[{"id": MODEL}])
    server.start()
    work = Path(tempfile.mkdtemp(prefix="palimpsest-turn-"))
    checkouts = {"this checkout": ROOT}
    if args.baseline:
        checkouts = {"baseline": args.baseline.resolve(), **checkouts}
    try:
        commands: dict[str, tuple[list[str], dict[str, str], Path]] = {}
        for label, checkout in checkouts.items():
            home = work / f"home-{len(commands)}"
            base, env = _palimpsest(checkout, home, work / "pycache")
            subprocess.run([*base, "providers", "add", "--type", "openai_compatible", "--base-url", server.base_url,
                            "local"], env=env, cwd=checkout, check=True, capture_output=True)
            commands[label] = (base, env, checkout)
        turns = [([*base, "chat", "-p", "local", "-m", MODEL, "hi"], env, cwd) for base, env, cwd in commands.values()]
        labels = list(commands)
        if args.llm:
            turns.append(([str(args.llm), "-m", "fake", "hi"], _llm_env(work / "llm", server.base_url), work))
            labels.append("llm")
        before = load_average()
        measured = dict(zip(labels, alternate(turns, args.runs), strict=True))
        rows = [f"| one chat turn: {label} | {_cpu(runs)} | {med([r.peak_mib for r in runs]):,.0f} MiB |"
                for label, runs in measured.items()]
        mine = measured["this checkout"]
        for other in labels[:-1] if args.llm else labels:
            if other != "this checkout":
                rows.append(f"| this checkout / {other}, a turn | {ratio(mine, measured[other], 'cpu'):.2f}× CPU, "
                            f"{ratio(mine, measured[other], 'wall'):.2f}× wall | |")
        if args.llm:
            rows.append(f"| this checkout / llm, a turn | {ratio(mine, measured['llm'], 'cpu'):.2f}× CPU, "
                        f"{ratio(mine, measured['llm'], 'wall'):.2f}× wall | |")
        for label, (base, env, cwd) in commands.items():
            pair = [([*base, "sessions", "list"], env, cwd), ([*base, "keys", "status"], env, cwd)]
            listing, status = alternate(pair, args.runs)
            rows.append(f"| `sessions list` / `keys status`: {label} | {_cpu(listing)} vs {_cpu(status)}: "
                        f"{ratio(listing, status, 'cpu'):.2f}× CPU | |")
        failures = len(server.failures)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    report = "\n".join([
        f"Medians of {args.runs} alternated runs; load average {before} at the start, {load_average()} at the end; "
        f"fake server failures: {failures}.", "",
        "| command | result | peak memory |", "|---|--:|--:|", *rows]) + "\n"
    print(report)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("# CLI turn benchmark\n\n`.venv/bin/python -m bench.cli_turn`\n\n" + report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
