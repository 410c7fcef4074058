"""A large PNG is checked, shrunk and thumbnailed a band of rows at a time: the pixels are Pillow's own, a broken
one is still refused, and attaching a 100-megapixel PNG stays far below the memory its whole image would take."""

from __future__ import annotations

import io
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from PIL import Image

from data.attachments import png_bands
from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake, AttachmentRejected
from data.attachments.media import downscale
from tests.cli.harness import ROOT


def _noisy(mode: str, size: tuple[int, int] = (301, 257)) -> Image.Image:
    """An image whose rows use every PNG filter (Pillow picks them adaptively)."""
    base = Image.effect_noise(size, 60).convert("L")
    gradient = Image.linear_gradient("L").resize(size)
    rgba = Image.merge("RGBA", (base, gradient, base.rotate(90, expand=False), gradient.transpose(0)))
    return rgba.convert(mode) if mode != "P" else rgba.convert("RGB").quantize(64)


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


@pytest.fixture(autouse=True)
def small_bands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(png_bands, "BANDED_FROM", 1)
    monkeypatch.setattr(png_bands, "BAND_BYTES", 5_000)  # many bands, a band border every few rows


@pytest.mark.parametrize("mode", ["L", "LA", "RGB", "RGBA", "P"])
def test_the_bands_put_together_are_the_image_pillow_decodes_whole(mode: str) -> None:
    data = _png(_noisy(mode))
    layout = png_bands.banded(data)
    assert layout is not None
    whole = Image.open(io.BytesIO(data))
    whole.load()
    rows = list(png_bands.bands(data, layout))
    assert len(rows) > 5 and sum(b.height for b in rows) == whole.height
    joined = Image.new(whole.mode, whole.size)
    y = 0
    for band in rows:
        joined.paste(band, (0, y))
        y += band.height
    assert joined.tobytes() == whole.tobytes()
    if mode in ("RGB", "RGBA", "L", "LA"):
        assert png_bands.reduced(data, layout, 3).tobytes() == whole.reduce(3).tobytes()


def test_a_png_whose_pixel_data_is_cut_short_is_refused(tmp_path: Path) -> None:
    data = _png(_noisy("RGB"))
    idat = data.index(b"IDAT") - 4
    length = struct.unpack(">I", data[idat:idat + 4])[0]
    body = data[idat + 8:idat + 8 + length // 2]  # half the compressed rows, with a correct checksum
    chunk = struct.pack(">I", len(body)) + b"IDAT" + body + struct.pack(">I", zlib.crc32(b"IDAT" + body))
    cut = data[:idat] + chunk + data[idat + 12 + length:]
    with pytest.raises(AttachmentRejected, match="not a readable image"):
        AttachmentIntake(AttachmentFiles(tmp_path)).from_bytes("cut.png", cut)


def test_a_large_png_is_shrunk_and_kept_as_png() -> None:
    data = _png(_noisy("RGBA", (900, 700)))
    shrunk, media_type = downscale(data, 200, 5_000_000)
    assert media_type == "image/png" and Image.open(io.BytesIO(shrunk)).size in ((200, 155), (200, 156))


def _write_100_megapixels(path: Path, width: int = 10_000, height: int = 9_999) -> None:
    """A 99.99-megapixel RGB PNG (just under the cap), written a row at a time (a gradient: a small file)."""
    pack = zlib.compressobj(6)
    row = bytes(i * 255 // width for i in range(width) for _ in range(3))
    with path.open("wb") as out:
        out.write(png_bands.SIGNATURE)
        out.write(png_bands._chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)))
        idat = bytearray()
        for y in range(height):
            idat += pack.compress((b"\x02" if y else b"\x00") + row)  # filter Up: rows the same as the first
        idat += pack.flush()
        out.write(png_bands._chunk(b"IDAT", bytes(idat)))
        out.write(png_bands._chunk(b"IEND", b""))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="the peak is read from /proc (Linux)")
def test_attaching_a_100_megapixel_png_takes_far_less_memory_than_its_pixels(tmp_path: Path) -> None:
    big = tmp_path / "big.png"
    _write_100_megapixels(big)
    script = (
        "import sys, pathlib\n"
        "from data.attachments.files import AttachmentFiles\n"
        "from data.attachments.intake import AttachmentIntake\n"
        "from data.attachments.media import downscale\n"
        "files = AttachmentFiles(pathlib.Path(sys.argv[2]))\n"
        "a = AttachmentIntake(files).from_path(pathlib.Path(sys.argv[1]))\n"
        "downscale(files.read(a.sha256), 1568, 5_000_000)\n"
        # this process's own peak: ru_maxrss would count the pytest process that spawned it (kept across exec)
        "hwm = next(l for l in pathlib.Path('/proc/self/status').read_text().splitlines() if l.startswith('VmHWM:'))\n"
        "print(a.width, a.height, int(hwm.split()[1]) // 1024)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(big), str(tmp_path / "store")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    width, height, peak_mb = (int(v) for v in done.stdout.split())
    assert (width, height) == (10_000, 9_999)
    assert peak_mb < 250, f"peak RSS {peak_mb} MB (the whole image alone is 300 MB)"
