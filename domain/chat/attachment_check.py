"""Checks a new message's attachments against the chosen model before anything is stored or sent."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from domain.attachment import MISSING_NOTE, Attachment, AttachmentKind
from domain.capabilities import reads_pdfs
from domain.context.session_context import SessionContext
from domain.documents import is_document
from domain.errors import AttachmentUnsupported
from domain.provider_ports import AttachmentForms
from domain.provider_rules import ProviderRules, limit_problem


def check_attachments(
    ctx: SessionContext, attachments: Sequence[Attachment], rules: ProviderRules | None,
    forms: AttachmentForms | None = None, cards: Collection[str] = (),
) -> list[str]:
    """Raises AttachmentUnsupported when the context's model cannot take one of the files (no image input, a PDF
    too large or too long for the provider); returns notices for what goes in another form (a PDF as its text, an
    image converted to a type the provider takes: `forms`, a document as its card: `cards`, their names)."""
    if not attachments or ctx.provider is None or ctx.model is None:
        return []
    model, caps = ctx.model, ctx.model.capabilities
    images = [a.name for a in attachments if a.kind is AttachmentKind.IMAGE]
    if images and caps is not None and caps.vision is False:
        raise AttachmentUnsupported(
            f"{model.id} does not take images, so nothing was sent ({', '.join(images)}). Choose a model that reads "
            "images (the model picker, or -m MODEL), or remove the image."
        )
    notices = list(forms.notices(attachments, ctx.provider.type, ctx.provider.name)) if forms is not None else []
    for attachment in attachments:
        if attachment.name in cards and is_document(attachment):  # read on demand: the request carries its card
            notices.append(f"{attachment.name} is too large to send whole to {model.id}: the model is given its card "
                           "(outline and first page) and reads it on demand (search_documents, read_document).")
            continue
        if attachment.kind is not AttachmentKind.PDF:
            continue
        if not reads_pdfs(caps):
            does = "does not read" if caps is not None and caps.pdf_input is False else "is not known to read"
            if not attachment.text_chars:
                raise AttachmentUnsupported(
                    f"{model.id} {does} PDFs and no text could be extracted from {attachment.name} (a scanned "
                    "document?), so nothing was sent. Choose a model that reads PDFs, or remove it."
                )
            notices.append(f"{model.id} {does} PDFs: the text extracted from {attachment.name} is sent instead (no "
                           "images or layout). Choose a model that reads PDFs to send the file itself.")
            continue
        problem = limit_problem(attachment, rules.media_limits(ctx.provider.type), ctx.provider.name) if rules else None
        if problem is not None:
            raise AttachmentUnsupported(problem + " Nothing was sent.")
    return notices


def missing_files(ctx: SessionContext, forms: AttachmentForms | None) -> list[str]:
    """Notices for the attachments of the conversation whose files are gone (each goes as its placeholder), the
    first time this process meets each."""
    gone = [a for m in ctx.pinned + ctx.messages for a in m.attachments if a.omitted and a.note == MISSING_NOTE]
    return forms.missing(gone) if gone and forms is not None else []
