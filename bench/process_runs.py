"""Whole-process measurements for the side-by-side benchmarks: wall time, CPU (user + sys) and peak RSS of each run,
taken from the kernel's accounting of the finished child (os.wait4), two commands alternated run by run."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Run:
    """One finished process."""

    wall: float  # seconds
    cpu: float  # seconds, user + sys
    peak_mib: float  # the process's peak resident set
    code: int


def run_once(command: Sequence[str], env: dict[str, str], cwd: Path, stdout: int | None = subprocess.DEVNULL) -> Run:
    """Runs a command to its end (output discarded) and returns its figures."""
    start = time.perf_counter()
    proc = subprocess.Popen(list(command), env=env, cwd=cwd, stdout=stdout, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode)


def alternate(commands: Sequence[tuple[Sequence[str], dict[str, str], Path]], runs: int) -> list[list[Run]]:
    """Each command `runs` times in turn (A B C A B C ...), after one unmeasured run of each."""
    for command, env, cwd in commands:
        run_once(command, env, cwd)
    out: list[list[Run]] = [[] for _ in commands]
    for _ in range(runs):
        for i, (command, env, cwd) in enumerate(commands):
            out[i].append(run_once(command, env, cwd))
    return out


def med(values: Sequence[float]) -> float:
    """The median."""
    return statistics.median(values)


def ratio(a: Sequence[Run], b: Sequence[Run], field: str) -> float:
    """The median of the run-by-run ratios a/b of one figure (pairs taken in the order run)."""
    return statistics.median(getattr(x, field) / getattr(y, field) for x, y in zip(a, b, strict=True))


def load_average() -> str:
    """The 1-minute load average now, for the report."""
    return f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "?"
