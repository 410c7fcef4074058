"""A `palimpsest` command process collects cyclic garbage less often; a caller embedding main() keeps its own GC."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from tests.cli.harness import ROOT


def _threshold_after(tmp_path: Path, call: str) -> int:
    code = (
        "import gc, os, sys\n"
        f"os.environ['PALIMPSEST_HOME'] = {str(tmp_path)!r}\n"
        "from app.main import main\n"
        "sys.argv = ['palimpsest', 'agents', 'list']\n"
        f"{call}\n"
        "print(gc.get_threshold()[0])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip().splitlines()[-1])


def test_a_command_process_raises_the_collection_threshold(tmp_path: Path) -> None:
    assert _threshold_after(tmp_path, "main()") == 100_000  # as the `palimpsest` script calls it


def test_a_caller_embedding_main_keeps_its_own_gc(tmp_path: Path) -> None:
    assert _threshold_after(tmp_path, "main(['agents', 'list'])") == gc.get_threshold()[0]
