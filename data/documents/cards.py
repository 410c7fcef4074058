"""Attachments as documents: indexed once from the text extracted when they were attached, and the card a request
carries in place of one too large for its budget."""

from __future__ import annotations

import io
import logging

from data.attachments.files import AttachmentFiles
from data.attachments.intake import CONVERTED
from data.attachments.quiet import quiet_decoders
from data.documents.extract import Extracted, extract, extract_text, pdf_from_stored_text, pdf_outline
from data.documents.store import SqlDocumentStore
from domain.attachment import Attachment, AttachmentKind, human_size
from domain.documents import CARD_MAX_CHARS, DocumentInfo, card_instructions

log = logging.getLogger(__name__)
CARD_OUTLINE_LINES = 25


class AttachmentDocuments:
    """Indexes attached documents on first need (extracted text split by page or section, the PDF outline) and
    writes their cards."""

    def __init__(self, store: SqlDocumentStore, files: AttachmentFiles) -> None:
        self.store = store
        self.files = files

    def ensure(self, attachment: Attachment) -> DocumentInfo | None:
        """The attachment's index entry, made now when it has none; None when it has no text."""
        known = self.store.attachment(attachment.sha256)
        if known is not None:
            return known
        extracted = self._extract(attachment)
        if extracted is None:
            return None
        self.store.put_attachment(attachment.sha256, attachment.name, attachment.size, extracted)
        return self.store.attachment(attachment.sha256)

    def card(self, attachment: Attachment) -> str:
        """The short text that stands for the document in a request: name, size, pages, outline, first page, and
        how to read on (at most CARD_MAX_CHARS)."""
        info = self.ensure(attachment)
        pages = f", {attachment.pages} pages" if attachment.pages else ""
        head = (f"[Document {attachment.name} ({attachment.kind.value}, {human_size(attachment.size)}{pages}, "
                f"{attachment.text_chars or 0:,} characters of text): too large to send whole; read it on demand]")
        tail = card_instructions(attachment.name)
        lines = [head]
        if info is not None and info.outline:
            lines.append("Outline:")
            for level, title, page in info.outline[:CARD_OUTLINE_LINES]:
                lines.append(f"{'  ' * (level - 1)}- {title[:80]}" + (f" (p. {page})" if page else ""))
            if len(info.outline) > CARD_OUTLINE_LINES:
                lines.append(f"  … {len(info.outline) - CARD_OUTLINE_LINES} more entries")
        room = CARD_MAX_CHARS - len("\n".join(lines)) - len(tail) - 40
        first = self.store.first_page(attachment.sha256) if info is not None else ""
        if first and room > 200:
            label = "First page" if attachment.kind is AttachmentKind.PDF else "Beginning"
            lines.append(f"{label}:\n{first[:room]}" + (" …" if len(first) > room else ""))
        lines.append(tail)
        return "\n".join(lines)[:CARD_MAX_CHARS]

    def _extract(self, attachment: Attachment) -> Extracted | None:
        if attachment.media_type in CONVERTED.values():  # a DOCX or EPUB: by section, from the original
            return extract(attachment.name, self.files.read(attachment.sha256))
        if attachment.kind is AttachmentKind.TEXT:
            return extract_text(attachment.name, self.files.read(attachment.sha256).decode("utf-8-sig", "replace"))
        stored = self.files.text(attachment.sha256)
        if attachment.kind is not AttachmentKind.PDF or not stored:
            return None
        extracted = pdf_from_stored_text(attachment.name, stored, attachment.pages)
        return Extracted(extracted.kind, extracted.passages, extracted.pages, self._outline(attachment))

    def _outline(self, attachment: Attachment) -> list[tuple[int, str, int | None]]:
        try:
            with quiet_decoders():
                from pypdf import PdfReader

                return pdf_outline(PdfReader(io.BytesIO(self.files.read(attachment.sha256))))
        except Exception:  # the outline is a convenience: the pages are indexed without it
            log.warning("could not read the outline of %s", attachment.name, exc_info=True)
            return []
