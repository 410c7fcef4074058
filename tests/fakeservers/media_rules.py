"""What the fake servers check in attachments, per provider, with the real error messages: the declared media type
against the bytes, base64 that decodes, a PDF that opens, the size limits; and the input tokens each provider bills
for an image (its published formula, written here independently of the app) or a PDF page."""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import math
from dataclasses import dataclass

IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp", "BMP": "image/bmp",
            "TIFF": "image/tiff"}
GEMINI_PAGE_TOKENS = 258  # Gemini: "each document page is equivalent to 258 tokens"
PAGE_EDGE = {"anthropic": 1568, "openai": 2048}  # Anthropic and OpenAI: each page as an image of this long edge, + text


@dataclass(frozen=True)
class MediaPart:
    """An image or PDF as a fake server received it: decoded, checked and priced."""

    kind: str  # "image" | "pdf" | "audio"
    media_type: str
    sha256: str
    size: int
    tokens: int
    width: int | None = None
    height: int | None = None
    pages: int | None = None
    name: str | None = None
    data: bytes = b""


class MediaRefused(Exception):
    """The request's attachment breaks a rule: the provider's own message."""


def b64(data: str, where: str) -> bytes:
    """Standard base64 decoded strictly (what all three APIs expect)."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise MediaRefused(f"{where}: invalid base64 data") from None


def image_format(data: bytes) -> tuple[str, int, int] | None:
    """(media type, width, height) of image bytes, or None when they are not a readable image."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            return _FORMATS.get(image.format or "", "image/unknown"), image.width, image.height
    except Exception:
        return None


def is_animated(data: bytes) -> bool:
    """Whether image bytes hold more than one frame (an animated GIF)."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            return bool(getattr(image, "is_animated", False))
    except Exception:
        return False


def pdf_pages(data: bytes) -> int | None:
    """The number of pages of a PDF, or None when it does not open."""
    from pypdf import PdfReader

    try:
        return len(PdfReader(io.BytesIO(data), strict=True).pages)
    except Exception:
        return None


def pdf_tokens(flavour: str, data: bytes) -> int:
    """Input tokens of a PDF as the provider bills it: Gemini 258 a page; Anthropic and OpenAI each page's
    extracted text (about four characters a token) plus an image of the page, rendered at their working edge."""
    from pypdf import PdfReader

    pages = PdfReader(io.BytesIO(data)).pages
    if flavour == "gemini":
        return GEMINI_PAGE_TOKENS * len(pages)
    total = 0
    for page in pages:
        width, height = float(page.mediabox.width), float(page.mediabox.height)
        scale = PAGE_EDGE[flavour] / max(width, height)
        text = page.extract_text() or ""
        total += image_tokens(flavour, round(width * scale), round(height * scale)) + (len(text) + 3) // 4
    return total


def image_tokens(flavour: str, width: int, height: int) -> int:
    """The provider's published count for one image."""
    if flavour == "anthropic":  # resized to a 1568 px long edge and ~1.15 MP, then w*h/750
        scale = min(1.0, 1568 / max(width, height), math.sqrt(1_150_000 / (width * height)))
        return max(1, math.ceil(int(width * scale) * int(height * scale) / 750))
    if flavour == "openai":  # fit 2048 square, shortest side 768, 170 per 512 tile + 85
        scale = min(1.0, 2048 / max(width, height))
        w, h = int(width * scale), int(height * scale)
        if min(w, h) > 768:
            w, h = int(w * 768 / min(w, h)), int(h * 768 / min(w, h))
        return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)
    if width <= 384 and height <= 384:  # gemini
        return 258
    return 258 * math.ceil(width / 768) * math.ceil(height / 768)


def checked_image(flavour: str, data: bytes, declared: str, where: str, max_bytes: int, max_edge: int) -> MediaPart:
    """An image part checked like the provider does (declared type matches the bytes, limits); MediaRefused."""
    found = image_format(data)
    if found is None:
        raise MediaRefused(f"{where}: Could not process image")
    actual, width, height = found
    if declared not in IMAGE_TYPES:
        raise MediaRefused(f"{where}.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or "
                           "'image/webp'")
    if actual != declared:
        raise MediaRefused(f"{where}: The image was specified using the {declared} media type, but the image "
                           f"appears to be a {actual} image")
    if len(data) > max_bytes:
        raise MediaRefused(f"{where}: image exceeds {max_bytes // 1048576} MB maximum: {len(data)} bytes > "
                           f"{max_bytes} bytes")
    if max(width, height) > max_edge:
        raise MediaRefused(f"{where}: At least one of the image dimensions exceed max allowed size: {max_edge} pixels")
    return MediaPart("image", actual, hashlib.sha256(data).hexdigest(), len(data),
                     image_tokens(flavour, width, height), width, height, data=data)


def checked_pdf(flavour: str, data: bytes, where: str, name: str | None = None) -> MediaPart:
    """A PDF part checked like the provider does (it opens); MediaRefused with the provider's message."""
    pages = pdf_pages(data)
    if pages is None or pages == 0:
        raise MediaRefused(f"{where}: The PDF specified was not valid.")
    return MediaPart("pdf", "application/pdf", hashlib.sha256(data).hexdigest(), len(data),
                     pdf_tokens(flavour, data), pages=pages, name=name, data=data)
