"""The load benchmark's command-line part: real `palimpsest` processes (wall time) and the same commands run
in-process on a freshly built Container (the time beyond start-up)."""

from __future__ import annotations

import asyncio
import gc
import io
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def palimpsest() -> str:
    """The installed `palimpsest` script beside this interpreter."""
    script = Path(sys.executable).parent / "palimpsest"
    return str(script) if script.exists() else "palimpsest"


def cli_env(home: Path, pycache: Path | None) -> dict[str, str]:
    """The environment of a measured process: the store, the in-memory keyring of the tests, and (unless pycache
    is None) compiled bytecode kept in `pycache`, as an installed Palimpsest has it."""
    env = dict(os.environ, PALIMPSEST_HOME=str(home), PYTHON_KEYRING_BACKEND="tests.memory_keyring.MemoryKeyring",
               PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def wall_ms(args: list[str], env: dict[str, str], runs: int) -> list[float]:
    """Wall times (ms) of `runs` processes running `palimpsest ARGS` (output discarded); one unmeasured run first."""
    command = [palimpsest(), *args]
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=300)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                       timeout=300)
        times.append((time.perf_counter() - start) * 1000)
    return times


def in_process_ms(home: Path, argv: list[str], runs: int) -> list[float]:
    """The time (ms) of the command alone, each run on a freshly opened Container (its output is discarded)."""
    from app.cli.parser import build_parser
    from app.container import Container
    from app.main import _command, tune_gc_for_a_command

    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "tests.memory_keyring.MemoryKeyring")
    args = build_parser().parse_args(argv)
    command = _command(args.command)
    times = []
    tune_gc_for_a_command()  # as `palimpsest` does for every command
    for _ in range(runs):
        container = Container.build(home)
        gc.freeze()
        try:
            out, err = io.StringIO(), io.StringIO()
            start = time.perf_counter()
            asyncio.run(command(container, args, out, err))
            times.append((time.perf_counter() - start) * 1000)
        finally:
            container.close()
    return times


def median(values: list[float]) -> float:
    """The median, rounded to 0.1."""
    return round(statistics.median(values), 1)
