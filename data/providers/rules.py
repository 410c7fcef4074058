"""The one table of provider rules for attachments: size and page limits, the image size each provider works at, and
the input tokens it bills for an image or a PDF page by its published formulas (the domain's ProviderRules)."""

from __future__ import annotations

import math
import re

from domain.models import ModelId, ProviderType
from domain.provider_rules import MediaLimits

ANTHROPIC, OPENAI, GEMINI = "anthropic", "openai", "gemini"
LETTER_PT = (612.0, 792.0)  # a PDF page whose size is unknown is taken as US Letter

LIMITS: dict[str, MediaLimits] = {
    # Messages API: 5 MB per image, 8000 px (2000 px with over 20 images; it resizes to a 1568 px long edge
    # anyway); PDFs up to 32 MB per request and 100 pages, each page sent as its text plus an image of it
    ANTHROPIC: MediaLimits(ANTHROPIC, 5 * 1024 * 1024, 1568, 32 * 1024 * 1024, 100, 32 * 1024 * 1024),
    # Chat Completions and Responses: images to 20 MB (scaled to fit 2048 × 2048), PDFs as file parts to 32 MB and
    # 100 pages, each page's text plus an image of it
    OPENAI: MediaLimits(OPENAI, 20 * 1024 * 1024, 2048, 32 * 1024 * 1024, 100, 32 * 1024 * 1024),
    # generateContent: 20 MB for the whole inline request, else the Files API (2 GB a file, kept 48 hours);
    # PDFs to 1,000 pages, each page 258 tokens
    GEMINI: MediaLimits(GEMINI, 20 * 1024 * 1024, 3072, 50 * 1024 * 1024, 1000, 7 * 1024 * 1024),
}
GEMINI_PAGE_TOKENS = 258  # "each document page is equivalent to 258 tokens" (Gemini's document-processing guide)
PDF_RENDER_EDGE = {ANTHROPIC: 1568, OPENAI: 2048}  # a page is rendered to an image this long, then priced as one
# a family's cheaper sibling writes its summaries: Claude -> Haiku, GPT / o-series -> *-mini or GPT-6's Luna,
# Gemini -> Flash
SUMMARY_FAMILIES: tuple[tuple[str, str], ...] = (
    (r"^(anthropic/)?claude", r"haiku"),
    (r"^(openai/)?(gpt-|o\d|chatgpt)", r"-mini|-luna"),
    (r"^(models/)?gemini", r"flash"),
)
_DATED = re.compile(r"(-\d{8}|-\d{4}-\d{2}-\d{2}|-\d{3}|-latest|-preview(-\d\d-\d\d)?|-exp(-\d+)?)+$")


def family(provider_type: ProviderType) -> str:
    """The rule family of a provider type (OpenAI-compatible servers take OpenAI's forms)."""
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


def page_pixels(width_pt: float, height_pt: float, edge: int) -> tuple[int, int]:
    """A page of this size in points rendered so its long edge is `edge` pixels."""
    width_pt, height_pt = max(width_pt, 1.0), max(height_pt, 1.0)
    scale = edge / max(width_pt, height_pt)
    return max(1, round(width_pt * scale)), max(1, round(height_pt * scale))


class ProviderRulesTable:
    """The domain's ProviderRules over the tables above."""

    def media_limits(self, provider_type: ProviderType) -> MediaLimits:
        """The provider's size and page limits."""
        return LIMITS[family(provider_type)]

    def count_key(self, provider_type: ProviderType, model_id: ModelId) -> str:
        """provider family + the model's name without its date or preview suffix (claude-sonnet-4-5-20250929 and
        claude-sonnet-4-5 count alike)."""
        name = model_id.rsplit("/", 1)[-1].lower()
        return f"{family(provider_type)}:{_DATED.sub('', name)}"

    def image_tokens(self, provider_type: ProviderType, width: int, height: int) -> int:
        """The provider's published count for one image."""
        return _IMAGE_TOKENS[family(provider_type)](max(1, width), max(1, height))

    def pdf_page_tokens(self, provider_type: ProviderType, width_pt: float, height_pt: float) -> int:
        """Gemini: 258 a page; Anthropic and OpenAI: the page's image, rendered to the edge they work at."""
        name = family(provider_type)
        if name == GEMINI:
            return GEMINI_PAGE_TOKENS
        return _IMAGE_TOKENS[name](*page_pixels(width_pt, height_pt, PDF_RENDER_EDGE[name]))

    def pdf_counts_text(self, provider_type: ProviderType) -> bool:
        """Anthropic and OpenAI send each page's extracted text beside its image; Gemini's page rule covers both."""
        return family(provider_type) != GEMINI

    def context_length_hint(self, trained: int | None) -> str:
        """Ollama's, LM Studio's and llama.cpp's settings for the context a model is loaded with."""
        upto = f"N up to {trained:,}, as memory allows" if trained else "N as memory allows"
        return (f"in Ollama, `PARAMETER num_ctx N` in a Modelfile (`ollama create`) or OLLAMA_CONTEXT_LENGTH=N when "
                f"starting the server ({upto}); in LM Studio, the model's context length when loading it; in "
                "llama.cpp, --ctx-size.")

    def summary_families(self) -> tuple[tuple[str, str], ...]:
        """The three vendors' families and their cheaper siblings."""
        return SUMMARY_FAMILIES


PROVIDER_RULES = ProviderRulesTable()
