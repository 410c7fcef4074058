"""Attachments of a message (images, PDFs, text files): what is stored about each, and the line that stands in for
one a request leaves out."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum


class AttachmentKind(StrEnum):
    """What an attachment is, which decides its wire form and its token estimate."""

    IMAGE = "image"
    PDF = "pdf"
    TEXT = "text"  # a text or code file, sent as a text block with its name
    AUDIO = "audio"  # a sound clip (from an MCP tool): sent only to a model that takes audio


IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/tiff")
PDF_TYPE = "application/pdf"
AUDIO_TYPES = ("audio/wav", "audio/mpeg", "audio/ogg", "audio/flac")


@dataclass(frozen=True)
class Attachment:
    """One file attached to a user message, stored once by its content's sha256 (the bytes live in the attachment
    store, never in the message). For a PDF, width and height are its first page's size in points. `tokens`,
    `exact`, `omitted`, `as_text` and `card` describe one request only: the request planner
    sets them on a copy (stored attachments keep the defaults)."""

    sha256: str
    name: str
    media_type: str
    kind: AttachmentKind
    size: int
    width: int | None = None  # images: pixels of the original
    height: int | None = None
    pages: int | None = None  # PDFs
    text_chars: int | None = None  # text files: their characters; PDFs: characters of the extracted text
    duration_ms: int | None = None  # audio: its length, when its header tells
    tokens: int = 0  # estimated input tokens in this request, for its provider
    exact: bool = False  # `tokens` is the provider's own count (its count endpoint), not a rule's estimate
    omitted: bool = False  # this request sends a one-line placeholder instead
    as_text: bool = False  # this request sends a PDF's extracted text (the model reads no PDFs)
    note: str | None = None  # why it is omitted when that is not its age (e.g. the model takes no images)
    card: bool = False  # this request sends the document's card (domain.documents) instead of it: too large

    @property
    def label(self) -> str:
        """A short description: name, kind and size (and pixels or pages)."""
        extra = ""
        if self.kind is AttachmentKind.IMAGE and self.width and self.height:
            extra = f", {self.width}×{self.height}"
        elif self.kind is AttachmentKind.PDF and self.pages:
            extra = f", {self.pages} page{'s' if self.pages != 1 else ''}"
        elif self.kind is AttachmentKind.AUDIO and self.duration_ms is not None:
            extra = f", {self.duration_ms / 1000:.1f} s"
        return f"{self.name} ({self.kind.value}, {human_size(self.size)}{extra})"


MISSING_NOTE = "not sent: its file is missing from the data folder"


def missing(attachment: Attachment) -> Attachment:
    """The attachment as a request carries it when its file is gone from the data folder: its placeholder."""
    return replace(attachment, omitted=True, as_text=False, exact=False, note=MISSING_NOTE)


def placeholder(attachment: Attachment) -> str:
    """The one line a request sends in place of an attachment it leaves out."""
    if attachment.note:
        return f"[Attachment {attachment.label}: {attachment.note}]"
    return f"[Attachment {attachment.label} — not resent; original kept — ask to see it again]"


def human_size(size: int) -> str:
    """Bytes as a short human figure (B, KB, MB, GB; 1 KB = 1,000 bytes)."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{size} B"  # pragma: no cover - the loop always returns
