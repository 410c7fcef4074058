"""A PDF goes natively only to a model known to read PDFs (its capabilities say pdf_input true); to any other (no
capabilities, or pdf_input not known: an OpenAI-compatible server's unlisted model) it goes as its extracted text,
priced as text before it is stored, and the user is told once."""

from __future__ import annotations

from dataclasses import replace

from data.providers.rules import PROVIDER_RULES
from domain.attachment import Attachment, AttachmentKind
from domain.context.attachment_plan import AttachmentTarget, plan_attachments
from domain.context.estimator import TokenEstimator
from domain.events import ChatError, Notice
from domain.models import Message, MessageType, ModelCapabilities, ProviderType
from tests.fakes_turn import make_world, reply

REPORT = Attachment("b" * 64, "report.pdf", "application/pdf", AttachmentKind.PDF, 400_000, pages=2, text_chars=600)
SCAN = Attachment("c" * 64, "scan.pdf", "application/pdf", AttachmentKind.PDF, 900_000, pages=3)


def _planned(caps: ModelCapabilities | None) -> tuple[Attachment, ...]:
    message = Message("u1", "s1", MessageType.USER, "look", seq=1, attachments=(REPORT, SCAN))
    target = AttachmentTarget(ProviderType.OPENAI_COMPATIBLE, "llava:7b", caps)
    (planned,) = plan_attachments([message], target=target, protected_tokens=None,
                                  estimator=TokenEstimator(rules=PROVIDER_RULES))
    return planned.attachments


def test_a_pdf_goes_natively_only_to_a_model_known_to_read_pdfs() -> None:
    for unknown in (None, ModelCapabilities(vision=True)):  # no capabilities; pdf_input not known
        report, scan = _planned(unknown)
        assert report.as_text and not report.omitted
        assert report.tokens == TokenEstimator().estimate_chars(600) + 16  # its text, priced as text
        assert scan.omitted and "llava:7b is not known to read PDFs and no text could be extracted" in scan.note
    report, scan = _planned(ModelCapabilities(vision=True, pdf_input=True))
    assert not report.as_text and not scan.omitted and not scan.as_text


async def test_a_pdf_to_a_model_with_unknown_capabilities_is_sent_as_text_and_the_user_is_told() -> None:
    world = make_world()
    model = world.models.get("anthropic", "claude-big")
    world.models.upsert(replace(model, capabilities=None))
    world.adapter().scripts.append(reply("It says revenue rose."))
    events = [e async for e in world.send("s1", "summarize", attachments=(REPORT,))]
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert notices == ["claude-big is not known to read PDFs: the text extracted from report.pdf is sent instead (no "
                       "images or layout). Choose a model that reads PDFs to send the file itself."]
    sent = world.adapter().requests[0].messages[0].attachments[0]
    assert sent.as_text and sent.sha256 == REPORT.sha256
    assert world.stored()[0].attachments == (REPORT,)  # stored as attached


async def test_a_long_pdf_with_little_text_is_priced_as_its_text_before_it_is_stored() -> None:
    world = make_world(window=16_000)
    model = world.models.get("anthropic", "claude-big")
    world.models.upsert(replace(model, capabilities=None))
    world.adapter().scripts.append(reply("Seen."))
    slides = replace(REPORT, pages=40, text_chars=4_000)  # natively: 40 pages of 3,000 tokens, far over 16,000
    events = [e async for e in world.send("s1", "what is in it?", attachments=(slides,))]
    assert not [e for e in events if isinstance(e, ChatError)]
    assert world.adapter().requests[0].messages[0].attachments[0].as_text
