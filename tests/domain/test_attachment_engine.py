"""The context engine and attachments: per-provider prices, gating by the model's capabilities (PDF text fallback),
one-line placeholders once an attachment leaves the protected recent window, and checks before anything is sent."""

from __future__ import annotations

from dataclasses import replace

from data.providers.rules import (
    PROVIDER_RULES,
    anthropic_image_tokens,
    gemini_image_tokens,
    openai_image_tokens,
)
from domain.attachment import Attachment, AttachmentKind, placeholder
from domain.context.attachment_plan import AttachmentTarget, plan_attachments
from domain.context.estimator import TokenEstimator
from domain.events import ChatError, Notice
from domain.models import Message, MessageType, ModelCapabilities, ProviderType
from domain.provider_rules import limit_problem
from tests.fakes_turn import make_world, reply

SHOT = Attachment("a" * 64, "shot.png", "image/png", AttachmentKind.IMAGE, 250_000, width=1920, height=1080)
REPORT = Attachment("b" * 64, "report.pdf", "application/pdf", AttachmentKind.PDF, 400_000, pages=40,
                    text_chars=90_000)
SCAN = Attachment("c" * 64, "scan.pdf", "application/pdf", AttachmentKind.PDF, 900_000, pages=3)
CODE = Attachment("d" * 64, "greet.py", "text/x-python", AttachmentKind.TEXT, 3000, text_chars=3000)


def test_image_prices_follow_each_providers_published_formula() -> None:
    # Claude: resized to fit 1568 px and 1.15 MP, then w*h/750: 1429x804 -> 1532
    assert anthropic_image_tokens(1920, 1080) == 1532 and anthropic_image_tokens(200, 200) == 54
    # GPT-4o high detail: 2048 square, shortest side 768 -> 1365x768 -> 3x2 tiles -> 85 + 6*170
    assert openai_image_tokens(1920, 1080) == 1105 and openai_image_tokens(512, 512) == 255
    # Gemini: 258 for small images, else 258 per 768 px tile
    assert gemini_image_tokens(300, 300) == 258 and gemini_image_tokens(1920, 1080) == 258 * 3 * 2
    est = TokenEstimator(rules=PROVIDER_RULES)
    # Gemini: 258 a page, text included; Anthropic and OpenAI: an image of each page (a Letter page rendered to
    # 1568 / 2048 px, then priced as an image: 1,532 and 765 tokens) plus the page's text
    text = est.estimate_chars(90_000)
    assert est.attachment_tokens(REPORT, ProviderType.GEMINI) == 258 * 40
    assert est.attachment_tokens(REPORT, ProviderType.ANTHROPIC) == 1532 * 40 + text
    assert est.attachment_tokens(REPORT, ProviderType.OPENAI) == 765 * 40 + text
    assert est.attachment_tokens(CODE, ProviderType.OPENAI) == est.estimate_chars(3000) + 16


def test_a_count_the_provider_made_for_the_models_family_wins_over_the_rule() -> None:
    est = TokenEstimator(rules=PROVIDER_RULES)
    key = PROVIDER_RULES.count_key(ProviderType.ANTHROPIC, "claude-sonnet-4-5-20250929")
    assert key == PROVIDER_RULES.count_key(ProviderType.ANTHROPIC, "claude-sonnet-4-5")
    counts = {(REPORT.sha256, key): 55_283}
    reads = ModelCapabilities(vision=True, pdf_input=True)
    target = AttachmentTarget(ProviderType.ANTHROPIC, "claude-sonnet-4-5", reads, counts)
    (planned,) = plan_attachments([_user(1, "read", REPORT)], target=target, protected_tokens=None, estimator=est)
    assert planned.attachments[0].tokens == 55_283 and planned.attachments[0].exact
    other = AttachmentTarget(ProviderType.ANTHROPIC, "claude-opus-4-1", reads, counts)  # another family: the rule
    (planned,) = plan_attachments([_user(1, "read", REPORT)], target=other, protected_tokens=None, estimator=est)
    assert not planned.attachments[0].exact and planned.attachments[0].tokens != 55_283


def _target(kind: ProviderType, caps: ModelCapabilities | None = None, model: str | None = None) -> AttachmentTarget:
    return AttachmentTarget(kind, model, caps)


def _user(i: int, text: str, *files: Attachment) -> Message:
    return Message(f"u{i}", "s1", MessageType.USER, text, seq=i, attachments=files)


def _reply(i: int, words: int) -> Message:
    return Message(f"r{i}", "s1", MessageType.AI_RESPONSE, "word " * words, seq=i)


def test_a_model_without_vision_gets_a_note_and_one_without_pdf_input_gets_the_text() -> None:
    caps = ModelCapabilities(vision=False, pdf_input=False)
    est = TokenEstimator(rules=PROVIDER_RULES)
    (planned,) = plan_attachments([_user(1, "look", SHOT, REPORT, SCAN, CODE)],
                                  target=_target(ProviderType.OPENAI, caps, "tiny-model"), protected_tokens=None,
                                  estimator=est)
    shot, report, scan, code = planned.attachments
    assert shot.omitted and placeholder(shot) == ("[Attachment shot.png (image, 250.0 KB, 1920×1080): not sent: "
                                                  "tiny-model takes no images]")
    assert report.as_text and not report.omitted and report.tokens == est.estimate_chars(90_000) + 16
    assert scan.omitted and "no text could be extracted" in placeholder(scan)
    assert not code.omitted and code.tokens == est.estimate_chars(3000) + 16
    unknown = plan_attachments([_user(1, "look", SHOT)], target=_target(ProviderType.ANTHROPIC),
                               protected_tokens=None, estimator=est)
    assert not unknown[0].attachments[0].omitted and unknown[0].attachments[0].tokens == 1532  # unknown: sent


def test_attachments_deeper_than_the_protected_window_become_placeholders_the_newest_never() -> None:
    history = [_user(1, "first", SHOT), _reply(2, 400), _user(3, "second", replace(SHOT, sha256="e" * 64)),
               _reply(4, 100), _user(5, "third", replace(SHOT, sha256="f" * 64)), _reply(6, 3000)]
    estimator = TokenEstimator(rules=PROVIDER_RULES)
    planned = plan_attachments(history, target=_target(ProviderType.ANTHROPIC), protected_tokens=2000,
                               estimator=estimator)
    states = [m.attachments[0].omitted for m in planned if m.attachments]
    # the third is the newest user message: sent whatever follows it; the first and second lie deeper than 2,000
    assert states == [True, True, False]
    assert planned[0].attachments[0].tokens < 40  # a placeholder costs a line, not 1,532 tokens
    assert [m.content for m in planned] == [m.content for m in history]  # the stored text is not touched


def test_placeholders_advance_in_steps_so_the_request_prefix_changes_rarely() -> None:
    estimator = TokenEstimator(rules=PROVIDER_RULES)
    history: list[Message] = []
    changes, before = 0, []
    for turn in range(60):  # a screenshot every other turn: 30 of them
        files = [replace(SHOT, sha256=f"{turn:064x}", name=f"s{turn}.png")] if turn % 2 == 0 else []
        history += [_user(2 * turn, f"turn {turn}", *files), _reply(2 * turn + 1, 60)]
        planned = plan_attachments(history, target=_target(ProviderType.ANTHROPIC), protected_tokens=6000,
                                   estimator=estimator)
        now = [m.attachments[0].omitted for m in planned if m.attachments]
        assert all(now[i] for i, was in enumerate(before) if was), "a placeholder never turns back into the image"
        changes += now[: len(before)] != before
        before = now
        depth = 0
        for message in reversed(planned):  # nothing is sent natively from deeper than the protected window
            if message.attachments and not message.attachments[0].omitted and message is not planned[-2]:
                assert depth <= 6000
            depth += estimator.estimate_message(replace(message, attachments=tuple(
                replace(a, tokens=0, omitted=False) for a in message.attachments)))
    assert sum(before) >= 20  # most of the 30 screenshots are placeholders by the end
    # the line moves in steps of half the protected window (of the conversation measured at native prices): at most
    # one prefix change per step, however many screenshots each step replaces
    steps = (depth - 6000) // 3000 + 1
    assert changes <= steps < sum(before)


def test_a_pdf_over_the_providers_limit_is_named() -> None:
    huge = replace(REPORT, size=40 * 1024 * 1024)
    limits = PROVIDER_RULES.media_limits
    assert limit_problem(huge, limits(ProviderType.ANTHROPIC), "Anthropic") == (
        "report.pdf is 41.9 MB; Anthropic takes PDFs up to 33.6 MB. Split it, or choose another provider.")
    assert limit_problem(replace(REPORT, pages=150), limits(ProviderType.OPENAI), "OpenAI") == (
        "report.pdf has 150 pages; OpenAI takes PDFs of up to 100 pages. Split it, or choose another provider.")
    assert limit_problem(huge, limits(ProviderType.GEMINI), "Gemini") is None


async def test_an_image_for_a_model_without_vision_is_refused_before_anything_is_stored_or_sent() -> None:
    world = make_world()
    model = world.models.get("anthropic", "claude-big")
    world.models.upsert(replace(model, capabilities=ModelCapabilities(vision=False, pdf_input=True)))
    events = [e async for e in world.send("s1", "what is this?", attachments=(SHOT,))]
    assert len(events) == 1 and isinstance(events[0], ChatError)
    assert events[0].kind == "attachment_unsupported"
    assert events[0].message.startswith("claude-big does not take images, so nothing was sent (shot.png). Choose a "
                                        "model that reads images")
    assert world.stored() == [] and world.adapter().requests == []


async def test_a_pdf_for_a_model_without_pdf_input_goes_as_text_and_the_user_is_told() -> None:
    world = make_world()
    model = world.models.get("anthropic", "claude-big")
    world.models.upsert(replace(model, capabilities=ModelCapabilities(vision=True, pdf_input=False)))
    small = replace(REPORT, pages=2, text_chars=500)
    world.adapter().scripts.append(reply("It says revenue rose."))
    events = [e async for e in world.send("s1", "summarize", attachments=(small,))]
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert notices == ["claude-big does not read PDFs: the text extracted from report.pdf is sent instead (no images "
                       "or layout). Choose a model that reads PDFs to send the file itself."]
    sent = world.adapter().requests[0].messages[0].attachments[0]
    assert sent.as_text and sent.sha256 == small.sha256
    assert world.stored()[0].attachments == (small,)  # stored as attached: a later model that reads PDFs gets it


async def test_a_message_of_attachments_alone_is_sent_and_its_size_is_checked_against_the_window() -> None:
    world = make_world(window=8_000)
    world.adapter().scripts.append(reply("Seen."))
    events = [e async for e in world.send("s1", "", attachments=(SHOT,))]
    assert not [e for e in events if isinstance(e, ChatError)]
    huge = replace(REPORT, pages=90)  # too large for the window: no longer refused, its card goes instead
    world.adapter().scripts.append(reply("Its card says it has 90 pages."))
    events = [e async for e in world.send("s1", "and this?", attachments=(huge,))]
    assert not [e for e in events if isinstance(e, ChatError)]
    assert world.adapter().requests[-1].messages[-1].attachments[0].card


def test_the_summarizer_sees_each_attachment_as_its_placeholder_line_and_the_reply_about_it() -> None:
    from domain.context.transcript import render_transcript

    text = render_transcript([_user(1, "what is on this screen?", SHOT),
                              Message("r2", "s1", MessageType.AI_RESPONSE, "A login form with a red error.", seq=2)])
    assert text == ("[User]\nwhat is on this screen?\n[Attachment shot.png (image, 250.0 KB, 1920×1080) — not resent; "
                    "original kept — ask to see it again]\n\n[Assistant]\nA login form with a red error.")


async def test_the_gauge_counts_attachments_in_their_own_row_priced_for_the_provider() -> None:
    world = make_world()
    world.adapter().scripts.append(reply("Seen."))
    await world.turn("look", attachments=(SHOT,))
    status = world.status("s1")
    assert status.breakdown.attachments == 1532  # Claude's price of a 1920x1080 image
    assert status.used >= status.breakdown.attachments + status.breakdown.messages
    openai = world.status("s1", provider_id="openai", model_id="gpt-small")
    assert openai.breakdown.attachments == 1105  # the same image priced by OpenAI's tiles
