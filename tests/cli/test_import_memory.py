"""Import memory grows with the largest conversation, not with the file: an export four times as long (each
conversation the same size) peaks at about the same memory, measured in a child process of its own (VmHWM)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.load_cli import cli_env
from bench.load_memory import write_export
from tests.cli.harness import ROOT

_PEAK = ("import sys\nfrom app.main import main\nstatus = main(['import', 'chatgpt', sys.argv[1]])\n"
         "peak = next(line for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
         "print('PEAK', int(peak.split()[1]) * 1024, status)\n")


def _peak_bytes(home: Path, export: Path) -> int:
    """The peak resident memory of a process that imports `export` into a new store under `home`."""
    done = subprocess.run([sys.executable, "-c", _PEAK, str(export)], env=cli_env(home, None), cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    line = next((line for line in done.stdout.splitlines() if line.startswith("PEAK")), "")
    assert line.endswith(" 0"), done.stdout + done.stderr
    return int(line.split()[1])


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is read from Linux's /proc")
def test_an_export_four_times_as_long_peaks_at_about_the_same_memory(tmp_path: Path) -> None:
    short, long = tmp_path / "short.json", tmp_path / "long.json"
    write_export(short, 4)  # about 100 KB a conversation: 4 MB and 16 MB, both under the size streamed before
    write_export(long, 16)
    growth = long.stat().st_size - short.stat().st_size
    peak_short = _peak_bytes(tmp_path / "home-short", short)
    peak_long = _peak_bytes(tmp_path / "home-long", long)
    assert peak_long - peak_short < 0.25 * growth, (peak_short, peak_long, growth)
