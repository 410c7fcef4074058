"""Runs every check (ruff, mypy, import-linter) and then pytest; exits non-zero on the first failure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(title: str, argv: list[str]) -> None:
    """Runs one check from the project root and stops everything when it fails."""
    print(f"\n=== {title}: {' '.join(argv)}", flush=True)
    code = subprocess.call(argv, cwd=ROOT)
    if code != 0:
        print(f"=== {title} failed (exit {code})", flush=True)
        sys.exit(code)


def workers(argv: list[str]) -> list[str]:
    """pytest-xdist's options for the whole suite: a worker per core (2 to 4; the suite is mostly CLI subprocesses and
    local servers waiting on each other), one test file per worker so a module's servers start once. Given any pytest
    arguments (a file, -k, -x, -n ...) the caller chose the run: nothing is added."""
    if argv:
        return []
    count = min(4, max(2, os.cpu_count() or 2))
    return ["-n", str(count), "--dist", "loadfile"]


def main() -> None:
    """Lint, type-check, check the layer contract, then test (extra pytest arguments pass through)."""
    py = sys.executable
    bindir = Path(py).parent
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    run("ruff", [py, "-m", "ruff", "check", "."])
    run("mypy", [py, "-m", "mypy"])
    run("import-linter", [str(bindir / "lint-imports")])
    run("pytest", [py, "-m", "pytest", *workers(sys.argv[1:]), *sys.argv[1:]])


if __name__ == "__main__":
    main()
