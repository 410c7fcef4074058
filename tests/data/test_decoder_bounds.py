"""Pillow's DecompressionBombWarning and pypdf's repair notes no longer reach stderr (the cap is Palimpsest's own,
said in a sentence), and a large JPEG is decoded reduced when it is checked and scaled (its peak memory is a
fraction of the full decode). Each runs in a process of its own: its stderr and peak RSS are its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

WARNINGS = """
import sys
from pathlib import Path
from PIL import Image
from tests.attachment_samples import pdf, png
from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
Image.MAX_IMAGE_PIXELS = 1000  # Pillow's own limit below the image: it would warn
data = pdf(["one"])
at = data.find(b"1 0 obj")
shifted = data[:at] + b"% bytes that move every object off its xref offset\\n" + data[at:]
intake = AttachmentIntake(AttachmentFiles(Path(sys.argv[1])))
print(intake.from_bytes("shifted.pdf", shifted).pages, intake.from_bytes("wide.png", png(40, 30)).width)
"""

BIG_JPEG = """
import sys
from pathlib import Path
from PIL import Image
from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
from data.attachments.media import downscale
def high_water_kb():  # this process's own peak (ru_maxrss would count the parent that spawned it)
    line = next(l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("VmHWM:"))
    return int(line.split()[1])
data = Path(sys.argv[1]).read_bytes()
before = high_water_kb()
taken = AttachmentIntake(AttachmentFiles(Path(sys.argv[2]))).from_bytes("photo.jpg", data)
scaled, kind = downscale(data, 1568, 5_000_000)
peak = high_water_kb()
print(taken.width, kind, (peak - before) // 1024)
"""


def _run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_decoder_warnings_do_not_reach_stderr(tmp_path: Path) -> None:
    done = _run(WARNINGS, str(tmp_path / "store"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "40"]
    assert done.stderr == ""  # was: "incorrect startxref pointer(1)" and a DecompressionBombWarning


@pytest.mark.skipif(
    not Path("/proc/self/status").exists(),
    reason="the peak RSS is read from /proc/self/status, which only Linux has; the bound itself holds everywhere",
)
def test_a_large_jpeg_is_decoded_reduced(tmp_path: Path) -> None:
    maker = ("import sys; from PIL import Image; Image.new('RGB', (8000, 6000), (30, 90, 160))"
             ".save(sys.argv[1], 'JPEG', quality=80)")
    source = tmp_path / "photo.jpg"
    assert _run(maker, str(source)).returncode == 0
    done = _run(BIG_JPEG, str(source), str(tmp_path / "store"))
    assert done.returncode == 0, done.stderr
    width, kind, grown_mb = done.stdout.split()
    assert (width, kind) == ("8000", "image/jpeg")
    assert int(grown_mb) < 60, f"checking and scaling a 48-megapixel JPEG took {grown_mb} MB more (144 MB decoded)"
