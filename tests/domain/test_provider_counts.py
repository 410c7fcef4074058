"""The provider's own counts of attachments: asked once per attachment and model family before the request that
carries it natively, kept, and used as they are (never scaled by the text's calibration); without a count the
provider's published rule prices it, and such a request never teaches the text ratio."""

from __future__ import annotations

from dataclasses import replace

from data.providers.rules import PROVIDER_RULES
from domain.attachment import Attachment, AttachmentKind
from domain.context.estimator import attachment_calibration_key, calibration_key
from domain.models import ModelCapabilities, ProviderType
from tests.fakes_turn import make_world, reply

REPORT = Attachment("b" * 64, "report.pdf", "application/pdf", AttachmentKind.PDF, 400_000, pages=36,
                    text_chars=90_000, width=612, height=792)
KEY = PROVIDER_RULES.count_key(ProviderType.ANTHROPIC, "claude-big")


def _world(**options):
    """A world whose claude-big is known to read images and PDFs (else a PDF goes as its text)."""
    world = make_world(**options)
    model = world.models.get("anthropic", "claude-big")
    world.models.upsert(replace(model, capabilities=ModelCapabilities(vision=True, pdf_input=True)))
    return world


async def test_an_attachment_is_counted_once_by_the_provider_and_priced_exactly_from_then_on():
    world = _world()
    adapter = world.adapter()
    adapter.attachment_counts[REPORT.sha256] = 55_283
    adapter.scripts.append(reply("It is a manual.", input_tokens=55_400))
    await world.turn("What is this?", attachments=(REPORT,))
    assert adapter.counted == [REPORT.sha256] and world.counts.counts == {(REPORT.sha256, KEY): 55_283}
    sent = adapter.requests[0].messages[-1].attachments[0]
    assert sent.tokens == 55_283 and sent.exact
    status = world.status("s1")
    assert status.breakdown.attachments == 55_283  # the gauge shows the provider's figure
    adapter.scripts.append(reply("Page 3 explains it.", input_tokens=55_500))
    await world.turn("And page 3?")
    assert adapter.counted == [REPORT.sha256]  # counted once: the stored figure serves every later turn


async def test_a_count_is_never_scaled_by_the_texts_calibration_and_the_text_ratio_learns_without_it():
    world = _world()
    adapter = world.adapter()
    adapter.attachment_counts[REPORT.sha256] = 55_283
    key = calibration_key("anthropic", "claude-big")
    world.calibration.put(key, 2.0)  # text is estimated at half what the provider counts
    adapter.scripts.append(reply("ok", input_tokens=60_000))
    await world.turn("What is this?", attachments=(REPORT,))
    planned_attachment = adapter.requests[0].messages[-1].attachments[0]
    assert planned_attachment.exact and planned_attachment.tokens == 55_283
    status = world.status("s1")
    assert status.breakdown.attachments == 55_283
    assert world.calibration.get(attachment_calibration_key(key)) is None


async def test_without_a_count_the_rule_prices_the_pdf_and_the_text_ratio_is_not_learned_from_that_request():
    world = _world()
    adapter = world.adapter()  # no count endpoint: count_attachment_tokens answers None
    adapter.scripts.append(reply("ok", input_tokens=55_283))
    await world.turn("What is this?", attachments=(REPORT,))
    sent = adapter.requests[0].messages[-1].attachments[0]
    assert not sent.exact and sent.tokens == world.estimator.attachment_tokens(replace(REPORT),
                                                                               ProviderType.ANTHROPIC)
    key = calibration_key("anthropic", "claude-big")
    assert world.calibration.get(key) is None  # the text ratio never learns from a rule-priced PDF
    ratio = world.calibration.get(attachment_calibration_key(key))
    assert ratio is not None and ratio < 1.0  # the rule ran high for this server: its own ratio learns that
    model = world.models.get("anthropic", "claude-big")
    assert model.context_window_size == 200_000  # and the window is never touched


async def test_the_memory_flush_sees_attachments_as_their_placeholder_lines_never_the_files():
    from domain.context.flush import FLUSH_PROMPT
    from domain.events import MemoryFlushed
    from tests.domain.test_memory_flush import seed_history

    world = make_world(window=12_000)  # about 8,000 tokens used: past the flush point, below compaction
    seed_history(world, 2)
    shot = Attachment("c" * 64, "shot.png", "image/png", AttachmentKind.IMAGE, 9_000, width=300, height=200)
    world.adapter().scripts.extend([reply("A login form."), reply("")])  # the reply, then the flush turn
    events = await world.turn("What is on this screen?", attachments=(shot,))
    assert [e for e in events if isinstance(e, MemoryFlushed)] == [MemoryFlushed(0)]
    chat, flush = world.adapter().requests
    assert chat.messages[-1].attachments[0].omitted is False  # the turn itself sends the image
    assert flush.messages[-1].content == FLUSH_PROMPT
    sent = [a for m in flush.messages for a in m.attachments]
    assert sent and all(a.omitted for a in sent)  # the flush never resends it


async def test_a_server_that_reads_a_rule_priced_pdf_at_a_third_of_its_estimate_twice_changes_no_window():
    from domain.events import Notice

    world = _world()
    adapter = world.adapter()  # no count endpoint: the PDF is priced by the published rule, about 81,000 tokens
    adapter.scripts.extend([reply("A manual.", input_tokens=27_000), reply("Yes.", input_tokens=27_100)])
    events = await world.turn("What is this?", attachments=(REPORT,))
    events += await world.turn("Is page 3 about booting?")
    assert not [e for e in events if isinstance(e, Notice) and e.warning]
    model = world.models.get("anthropic", "claude-big")
    assert model.context_window_size == 200_000 and model.window_source.value == "registry"
    assert world.evidence.signs == {}  # not even a first sign: the request was not comparable
