"""Pillow's and pypdf's own warnings kept off the user's terminal: the pixel cap is Palimpsest's own (intake says it
in a sentence), and pypdf's notes about a PDF it repairs while reading go to the debug log."""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Iterator

logging.getLogger("pypdf").setLevel(logging.ERROR)  # "incorrect startxref pointer", "Ignoring wrong pointing object"


@contextlib.contextmanager
def quiet_decoders() -> Iterator[None]:
    """Inside: no DecompressionBombWarning (the cap is checked by intake) and no pypdf warning reaches stderr."""
    from PIL import Image

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        with contextlib.suppress(ImportError):
            from pypdf.errors import PdfReadWarning

            warnings.simplefilter("ignore", PdfReadWarning)
        yield
