"""A large PNG decoded a band of rows at a time, so checking or shrinking it never holds the whole image: the IDAT
stream is inflated in pieces and each band goes to Pillow as a small PNG of its own, its first row the previous
band's last (the PNG filters of a row refer to the row above)."""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image as PilImage

SIGNATURE = b"\x89PNG\r\n\x1a\n"
BANDED_FROM = 16_000_000  # pixels: smaller images are decoded whole (at most ~64 MB)
BAND_BYTES = 4_000_000  # the raw rows of one band: memory stays near a few times this
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # PNG colour type -> samples per pixel
_KEPT = (b"PLTE", b"tRNS")  # the chunks a band needs besides IHDR and its rows


@dataclass(frozen=True)
class _Layout:
    width: int
    height: int
    header: bytes  # IHDR's data
    extra: bytes  # PLTE and tRNS chunks, as they are in the file
    idat: tuple[tuple[int, int], ...]  # (offset, length) of each IDAT chunk's data

    @property
    def row_bytes(self) -> int:
        return self.width * _CHANNELS[self.header[9]]


def banded(data: bytes) -> _Layout | None:
    """The layout of a PNG worth decoding in bands (at least BANDED_FROM pixels, 8 bits per sample, not interlaced),
    else None (decoded whole as before)."""
    if not data.startswith(SIGNATURE):
        return None
    at, header, extra, idat = len(SIGNATURE), b"", b"", []
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = (at + 8, length)
        if kind == b"IHDR":
            header = data[at + 8:at + 8 + length]
        elif kind in _KEPT:
            extra += data[at:at + 12 + length]
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        at += 12 + length
    if len(header) != 13 or not idat:
        return None
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour not in _CHANNELS or interlace or width * height < BANDED_FROM:
        return None
    return _Layout(width, height, header, extra, tuple(idat))


def bands(data: bytes, layout: _Layout, multiple: int = 1) -> Iterator[PilImage.Image]:
    """The image's rows in order, a band at a time (each band's height a multiple of `multiple` but the last);
    ValueError (or Pillow's errors) when the pixel data is broken or short."""
    stride = layout.row_bytes + 1  # a filter byte before each row
    rows = max(multiple, BAND_BYTES // stride // multiple * multiple)
    inflate = zlib.decompressobj()
    pending = bytearray()
    above: bytes | None = None  # the last row decoded, unfiltered
    done = 0
    for offset, length in layout.idat:
        piece = inflate.decompress(data[offset:offset + length], rows * stride)
        while True:
            pending += piece
            while done < layout.height and len(pending) >= (take := min(rows, layout.height - done) * stride):
                band, above = _decoded(layout, bytes(pending[:take]), above)
                del pending[:take]
                done += band.height
                yield band
            if not inflate.unconsumed_tail:
                break
            piece = inflate.decompress(inflate.unconsumed_tail, rows * stride)
        if done >= layout.height:
            break
    if done < layout.height:
        raise ValueError(f"the pixel data ends after {done} of {layout.height} rows")


def _decoded(layout: _Layout, raw: bytes, above: bytes | None) -> tuple[PilImage.Image, bytes]:
    """One band decoded by Pillow, and its last row unfiltered."""
    from PIL import Image

    lead = b"\x00" + above if above is not None else b""  # filter None: the row above as it is
    height = len(raw) // (layout.row_bytes + 1) + (1 if above is not None else 0)
    header = struct.pack(">II", layout.width, height) + layout.header[8:]
    png = SIGNATURE + _chunk(b"IHDR", header) + layout.extra + _chunk(b"IDAT", zlib.compress(lead + raw, 0)) + \
        _chunk(b"IEND", b"")
    with Image.open(io.BytesIO(png)) as image:
        image.load()
        band = image.crop((0, 1, layout.width, height)) if above is not None else image.copy()
    last = band.crop((0, band.height - 1, layout.width, band.height)).tobytes()
    return band, last


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def reduced(data: bytes, layout: _Layout, factor: int) -> PilImage.Image:
    """The image shrunk by `factor` on each side (Image.reduce, a band at a time)."""
    from PIL import Image

    out: Image.Image | None = None
    y = 0
    for band in bands(data, layout, multiple=factor):
        if band.mode not in ("L", "LA", "RGB", "RGBA"):  # a palette: reduced as colours
            band = band.convert("RGBA")
        small = band.reduce(factor) if factor > 1 else band
        if out is None:
            out = Image.new(small.mode, (-(-layout.width // factor), -(-layout.height // factor)))
        out.paste(small, (0, y))
        y += small.height
    assert out is not None, "a banded PNG has rows"
    return out
