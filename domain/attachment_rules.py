"""What each provider family takes as attachments: size and page limits, the image size it works at, and how many
input tokens an image or a PDF costs there (its published formulas)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from domain.attachment import Attachment, AttachmentKind, human_size
from domain.models import ProviderType

ANTHROPIC, OPENAI, GEMINI = "anthropic", "openai", "gemini"
TEXT_CHARS_PER_TOKEN = 3.0  # text and code files: a safe (high) estimate before calibration


@dataclass(frozen=True)
class MediaLimits:
    """One provider family's attachment limits (bytes of the file as sent, before base64)."""

    family: str
    image_max_bytes: int  # larger images are downscaled (and re-encoded) until they fit
    image_max_edge: int  # longer images are downscaled to this edge before sending (the provider would anyway)
    pdf_max_bytes: int
    pdf_max_pages: int
    inline_max_bytes: int  # larger files go through the provider's file upload, where it has one
    pdf_page_tokens: int  # input tokens per PDF page


LIMITS: dict[str, MediaLimits] = {
    # Messages API: 5 MB per image, 8000 px (2000 px with over 20 images; it resizes to a 1568 px long edge
    # anyway); PDFs up to 32 MB per request and 100 pages, each page sent as text plus an image (1,500-3,000 tokens)
    ANTHROPIC: MediaLimits(ANTHROPIC, 5 * 1024 * 1024, 1568, 32 * 1024 * 1024, 100, 32 * 1024 * 1024, 3000),
    # Chat Completions: images to 20 MB (scaled to fit 2048 × 2048), PDFs as file parts to 32 MB and 100 pages,
    # each page's text plus an image of it
    OPENAI: MediaLimits(OPENAI, 20 * 1024 * 1024, 2048, 32 * 1024 * 1024, 100, 32 * 1024 * 1024, 3000),
    # generateContent: 20 MB for the whole inline request, else the Files API (2 GB a file, kept 48 hours);
    # PDFs to 1,000 pages at 258 tokens a page
    GEMINI: MediaLimits(GEMINI, 20 * 1024 * 1024, 3072, 50 * 1024 * 1024, 1000, 7 * 1024 * 1024, 258),
}


def family(provider_type: ProviderType) -> str:
    """The attachment family of a provider type (OpenAI-compatible servers take OpenAI's forms)."""
    if provider_type is ProviderType.ANTHROPIC:
        return ANTHROPIC
    if provider_type is ProviderType.GEMINI:
        return GEMINI
    return OPENAI


def scaled_to_fit(width: int, height: int, max_edge: int, max_pixels: int | None = None) -> tuple[int, int]:
    """(width, height) shrunk, aspect kept, so the long edge is at most max_edge (and the area at most max_pixels)."""
    scale = min(1.0, max_edge / max(width, height, 1))
    if max_pixels is not None and width * height * scale * scale > max_pixels:
        scale = math.sqrt(max_pixels / (width * height))
    return max(1, int(width * scale)), max(1, int(height * scale))


def anthropic_image_tokens(width: int, height: int) -> int:
    """Claude: width × height / 750 after its resize to a 1568 px long edge and about 1.15 megapixels."""
    w, h = scaled_to_fit(width, height, 1568, 1_150_000)
    return max(1, math.ceil(w * h / 750))


def openai_image_tokens(width: int, height: int) -> int:
    """GPT-4o-class, detail auto/high: fit in 2048 × 2048, shortest side to 768, then 170 per 512 px tile + 85."""
    w, h = scaled_to_fit(width, height, 2048)
    short = min(w, h)
    if short > 768:
        w, h = int(w * 768 / short), int(h * 768 / short)
    tiles = math.ceil(w / 512) * math.ceil(h / 512)
    return 85 + 170 * tiles


def gemini_image_tokens(width: int, height: int) -> int:
    """Gemini: 258 when both sides are at most 384 px, else 258 per 768 × 768 tile."""
    if width <= 384 and height <= 384:
        return 258
    return 258 * math.ceil(width / 768) * math.ceil(height / 768)


_IMAGE_TOKENS = {ANTHROPIC: anthropic_image_tokens, OPENAI: openai_image_tokens, GEMINI: gemini_image_tokens}


def attachment_tokens(attachment: Attachment, family_name: str) -> int:
    """Estimated input tokens of an attachment sent natively to a provider family (PDFs sent as text, and text
    files, by their characters)."""
    if attachment.kind is AttachmentKind.TEXT or attachment.as_text:
        return math.ceil((attachment.text_chars or 0) / TEXT_CHARS_PER_TOKEN) + 16
    if attachment.kind is AttachmentKind.PDF:
        return LIMITS[family_name].pdf_page_tokens * max(1, attachment.pages or 1)
    width, height = attachment.width or 1024, attachment.height or 1024
    return _IMAGE_TOKENS[family_name](width, height)


def limit_problem(attachment: Attachment, family_name: str, provider_name: str) -> str | None:
    """Why the provider cannot take this attachment at all (a PDF too large or too long), or None."""
    if attachment.kind is not AttachmentKind.PDF or attachment.as_text:
        return None
    limits = LIMITS[family_name]
    if attachment.size > limits.pdf_max_bytes:
        return (f"{attachment.name} is {human_size(attachment.size)}; {provider_name} takes PDFs up to "
                f"{human_size(limits.pdf_max_bytes)}. Split it, or choose another provider.")
    if attachment.pages and attachment.pages > limits.pdf_max_pages:
        return (f"{attachment.name} has {attachment.pages} pages; {provider_name} takes PDFs of up to "
                f"{limits.pdf_max_pages} pages. Split it, or choose another provider.")
    return None
