"""What a request carries for each attachment: the stored bytes, an image downscaled to the provider's maximum or
converted to a type the provider takes (the original is kept), a text file's text, a PDF's extracted text."""

from __future__ import annotations

import base64
import io
import logging
from collections import OrderedDict
from typing import Protocol

from data.attachments.files import AttachmentFiles
from data.attachments.intake import CONVERTED, converted_text
from data.attachments.png_bands import banded, reduced
from data.attachments.quiet import quiet_decoders
from data.providers.media_forms import Conversion, conversion
from data.providers.rules import scaled_to_fit
from domain.attachment import MISSING_NOTE, Attachment
from domain.errors import StorageError
from domain.provider_rules import MediaLimits

CACHED_IMAGES = 48
__all__ = ["MISSING_NOTE", "MediaSource", "downscale"]


class CardSource(Protocol):
    """Writes a document's card (data.documents.cards.AttachmentDocuments)."""

    def card(self, attachment: Attachment) -> str: ...


log = logging.getLogger(__name__)


class MediaSource:
    """Reads attachments for the SDK shapers; downscaled and converted images are cached in memory (never written
    over the original)."""

    def __init__(self, files: AttachmentFiles) -> None:
        self.files = files
        self._scaled: OrderedDict[tuple[str, int, int, str], tuple[bytes, str]] = OrderedDict()
        self._animated: dict[str, bool] = {}
        self._reported: set[str] = set()
        self.documents: CardSource | None = None  # writes the cards of documents too large to send whole

    def card(self, attachment: Attachment) -> str:
        """The card a request carries in place of a document too large for its budget (domain.documents)."""
        if self.documents is None:
            return f"[Document {attachment.label}: too large to send whole, and no document index is open]"
        return self.documents.card(attachment)

    def present(self, attachment: Attachment) -> bool:
        """Whether the attachment's file is in the store; the first time one is found missing, one notice says
        that requests carry a placeholder in its place."""
        if self.files.exists(attachment.sha256):
            return True
        notice = self.missing_notice(attachment)
        if notice is not None:
            log.warning("%s", notice)
        return False

    def missing_notice(self, attachment: Attachment) -> str | None:
        """The one notice (per process) that a missing attachment goes as a placeholder; None once it was given."""
        if attachment.sha256 in self._reported:
            return None
        self._reported.add(attachment.sha256)
        return (f"The attachment {attachment.name} is missing from the data folder "
                f"({self.files.path(attachment.sha256)}); a placeholder is sent in its place.")

    def data(self, attachment: Attachment) -> bytes:
        """The original bytes; StorageError (saying which attachment) when the file is gone."""
        try:
            return self.files.read(attachment.sha256)
        except StorageError as exc:
            raise StorageError(f"The attachment {attachment.name} cannot be sent: {exc}") from None

    def base64(self, attachment: Attachment) -> str:
        """The original bytes in standard base64."""
        return base64.b64encode(self.data(attachment)).decode("ascii")

    def animated(self, attachment: Attachment) -> bool:
        """Whether a GIF has more than one frame (read once per process)."""
        if attachment.media_type != "image/gif":
            return False
        known = self._animated.get(attachment.sha256)
        if known is None:
            from PIL import Image

            with quiet_decoders(), Image.open(io.BytesIO(self.data(attachment))) as image:
                known = bool(getattr(image, "is_animated", False))
            self._animated[attachment.sha256] = known
        return known

    def conversion(self, attachment: Attachment, family: str) -> Conversion | None:
        """How an image is converted for a provider family that does not take it as stored (media_forms), or None."""
        return conversion(attachment.media_type, family, self.animated(attachment))

    def image(self, attachment: Attachment, limits: MediaLimits, forms: str | None = None) -> tuple[bytes, str]:
        """(bytes, media type) of an image as this provider family is sent it: the original when the family takes
        its type and it is within the family's long edge and byte limit, else converted to PNG (a type the family
        does not take; an animated GIF's first frame) or downscaled (PNG stays PNG, anything else becomes JPEG).
        `forms`: the media_forms family when it is not the limits' (an OpenAI-compatible server)."""
        converted = self.conversion(attachment, forms or limits.family)
        width, height = attachment.width or 0, attachment.height or 0
        fits = max(width, height) <= limits.image_max_edge and attachment.size <= limits.image_max_bytes
        if fits and converted is None:
            return self.data(attachment), attachment.media_type
        target = converted.media_type if converted is not None else ""
        key = (attachment.sha256, limits.image_max_edge, limits.image_max_bytes, target)
        hit = self._scaled.get(key)
        if hit is None:
            hit = downscale(self.data(attachment), limits.image_max_edge, limits.image_max_bytes, png=bool(target))
            self._scaled[key] = hit
            while len(self._scaled) > CACHED_IMAGES:
                self._scaled.popitem(last=False)
        return hit

    def text(self, attachment: Attachment) -> str:
        """A text file's text (UTF-8, a byte-order mark dropped); a DOCX's or EPUB's text extracted when attached."""
        if attachment.media_type in CONVERTED.values():
            stored = self.files.text(attachment.sha256)
            if stored is None:  # a copy without the text beside it (e.g. synced from another device): read again
                stored = converted_text(attachment.name, self.data(attachment))
                self.files.put_text(attachment.sha256, stored)
            return stored
        return self.data(attachment).decode("utf-8-sig", errors="replace")

    def pdf_text(self, attachment: Attachment) -> str:
        """The text extracted from a PDF when it was attached ("" when it had none)."""
        return self.files.text(attachment.sha256) or ""


def downscale(data: bytes, max_edge: int, max_bytes: int, png: bool = False) -> tuple[bytes, str]:
    """The image (its first frame) shrunk (aspect kept) to a long edge of at most max_edge and at most max_bytes when
    encoded; as PNG when `png` or when it is one, else as JPEG."""
    from PIL import Image

    with quiet_decoders(), Image.open(io.BytesIO(data)) as image:
        keep_png = png or image.format == "PNG"
        layout = banded(data) if image.format == "PNG" else None
        if layout is not None:  # a large PNG: decoded and shrunk a band of rows at a time
            frame = reduced(data, layout, max(1, max(image.width, image.height) // (2 * max_edge)))
        else:
            if image.format == "JPEG":  # decoded reduced (1/2 to 1/8) when it is far larger than the target
                image.draft("RGB", scaled_to_fit(image.width, image.height, max_edge))
            source = image if image.mode in ("RGB", "RGBA", "L") else image.convert("RGBA" if keep_png else "RGB")
            factor = max(1, max(source.width, source.height) // (2 * max_edge))  # shrunk once to near the target
            frame = source.reduce(factor) if factor > 1 else source.copy()
    frame = frame.convert("RGBA" if keep_png else "RGB")
    edge = max_edge
    while True:
        size = scaled_to_fit(frame.width, frame.height, edge)
        resized = frame.resize(size, Image.Resampling.LANCZOS) if size != frame.size else frame
        out = io.BytesIO()
        if keep_png:
            resized.save(out, format="PNG", optimize=True)
        else:
            resized.save(out, format="JPEG", quality=85)
        if out.tell() <= max_bytes or edge <= 256:
            return out.getvalue(), "image/png" if keep_png else "image/jpeg"
        edge = int(edge * 0.75)
