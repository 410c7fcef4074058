"""Small PNG thumbnails of stored images, and copies of stored files under their names for the system's viewer."""

from __future__ import annotations

import io
import re
import tempfile
from pathlib import Path

from data.attachments.png_bands import banded, reduced
from data.attachments.quiet import quiet_decoders

THUMBNAIL_EDGE = 160
_UNSAFE = re.compile(r"[^\w.\- ()]+")


def thumbnail_png(data: bytes, edge: int = THUMBNAIL_EDGE) -> bytes | None:
    """The image shrunk to fit edge × edge, as PNG; None when the bytes are not a readable image."""
    from PIL import Image

    try:
        with quiet_decoders(), Image.open(io.BytesIO(data)) as image:
            layout = banded(data) if image.format == "PNG" else None
            shown = reduced(data, layout, max(1, max(image.size) // (2 * edge))) if layout is not None else image
            shown.draft("RGB", (edge, edge))  # a JPEG is decoded reduced; a large PNG was, a band at a time
            shown.thumbnail((edge, edge))
            out = io.BytesIO()
            shown.convert("RGBA").save(out, format="PNG")
            return out.getvalue()
    except Exception:  # a thumbnail is decoration: a broken one is simply not shown
        return None


def viewable_copy(data: bytes, name: str, sha256: str) -> Path:
    """A copy of the bytes named `name` in a temporary folder of its own (the store's files have no extension)."""
    folder = Path(tempfile.gettempdir()) / "palimpsest-attachments" / sha256[:16]
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (_UNSAFE.sub("_", name).strip() or "attachment")
    if not target.exists() or target.stat().st_size != len(data):
        target.write_bytes(data)
    return target
