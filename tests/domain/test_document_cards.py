"""A document too large for its budget goes as its card (read on with the document tools) instead of being refused;
smaller ones go whole as before; a scan with no text is still refused, saying OCR is not built in."""

from __future__ import annotations

from dataclasses import replace

from data.providers.rules import PROVIDER_RULES
from domain.attachment import Attachment, AttachmentKind
from domain.context.attachment_plan import AttachmentTarget, plan_attachments
from domain.context.estimator import CARD_TOKENS, MESSAGE_OVERHEAD, TokenEstimator
from domain.events import ChatError, Notice
from domain.models import Message, MessageType, ModelCapabilities, ProviderType
from tests.fakes_turn import make_world, reply

READS = ModelCapabilities(vision=True, pdf_input=True)
MANUAL = Attachment("e" * 64, "manual.pdf", "application/pdf", AttachmentKind.PDF, 4_000_000, pages=800,
                    text_chars=1_600_000, width=612, height=792)
BRIEF = Attachment("f" * 64, "brief.pdf", "application/pdf", AttachmentKind.PDF, 40_000, pages=4, text_chars=8_000,
                   width=612, height=792)
SCAN = Attachment("c" * 64, "scan.pdf", "application/pdf", AttachmentKind.PDF, 9_000_000, pages=90)
EST = TokenEstimator(rules=PROVIDER_RULES)


def _planned(attachment: Attachment, capacity: int | None, model: str = "claude-sonnet-4-5") -> Attachment:
    target = AttachmentTarget(ProviderType.ANTHROPIC, model, READS, {}, capacity)
    (message,) = plan_attachments([Message("u1", "s1", MessageType.USER, "read", attachments=(attachment,), seq=1)],
                                  target=target, protected_tokens=None, estimator=EST)
    return message.attachments[0]


def test_a_document_over_half_the_capacity_goes_as_its_card_priced_as_one() -> None:
    card = _planned(MANUAL, 32_000)
    assert card.card and not card.exact and card.tokens == CARD_TOKENS + MESSAGE_OVERHEAD


def test_a_document_that_fits_goes_whole_and_a_short_one_never_becomes_a_card() -> None:
    assert not _planned(replace(MANUAL, pages=20, text_chars=40_000), 1_000_000).card  # a few % of a 1M window
    assert not _planned(BRIEF, 8_000).card  # under CARD_MIN_CHARS: whole, as before, whatever its share


def test_a_document_over_the_providers_page_limit_goes_as_its_card_even_when_the_window_is_large() -> None:
    assert _planned(replace(MANUAL, pages=150, text_chars=60_000), 10_000_000).card  # Anthropic: 100 pages at most


async def test_a_too_large_document_is_sent_as_its_card_and_a_too_large_scan_is_refused_naming_ocr() -> None:
    world = make_world(window=32_000)
    model = world.models.get("anthropic", "claude-big")
    world.models.upsert(replace(model, capabilities=READS))
    world.adapter().scripts.append(reply("I see its card."))
    events = [e async for e in world.send("s1", "what is in it?", attachments=(MANUAL,))]
    assert not [e for e in events if isinstance(e, ChatError)]
    sent = world.adapter().requests[-1].messages[-1].attachments[0]
    assert sent.card and sent.tokens == CARD_TOKENS + MESSAGE_OVERHEAD
    (notice,) = [e.message for e in events if isinstance(e, Notice)]
    assert notice.startswith("manual.pdf is too large to send whole to claude-big: the model is given its card")
    events = [e async for e in world.send("s1", "and this scan?", attachments=(SCAN,))]
    assert isinstance(events[0], ChatError) and "OCR is not built in" in events[0].message
    assert "too large for claude-big" in events[0].message


async def test_a_document_as_text_for_a_model_that_reads_no_pdfs_is_said_to_go_as_its_card_not_its_text() -> None:
    world = make_world(window=32_000)  # claude-big: not known to read PDFs here, so a PDF would go as its text
    world.adapter().scripts.append(reply("I see its card."))
    events = [e async for e in world.send("s1", "what is in it?", attachments=(MANUAL,))]
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and "is given its card" in notices[0] and "text extracted" not in notices[0]
    assert world.adapter().requests[-1].messages[-1].attachments[0].card
