"""A model its vendor retires: the notice in the 30 days before and after, once per conversation in a run, and the
404 a retired model gets worded with its date and successor (the message kept for Retry)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, date, datetime

import pytest

from domain.errors import InvalidResponse, ModelNotFound, ModelRetired, RateLimited
from domain.events import ChatError, Notice
from domain.models import AiModel, MessageType, Retirement
from domain.retirement import NOTICE_DAYS, RetirementNotices, explained, retirement_notice
from tests.fakes_turn import TurnWorld, make_world, reply

ON = date(2026, 11, 30)
SONNET = AiModel("claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", "anthropic", context_window_size=200_000,
                 retirement=Retirement(ON, "claude-sonnet-4-6", "Claude Sonnet 4.6"))


def test_no_notice_more_than_thirty_days_ahead_or_without_a_retirement() -> None:
    assert retirement_notice(SONNET, "Anthropic", date(2026, 10, 30)) is None  # 31 days ahead
    assert retirement_notice(replace(SONNET, retirement=None), "Anthropic", ON) is None
    assert retirement_notice(None, "Anthropic", ON) is None


def test_the_notice_names_the_day_how_soon_and_the_successor() -> None:
    assert NOTICE_DAYS == 30
    assert retirement_notice(SONNET, "Anthropic", date(2026, 10, 31)) == (
        "Claude Sonnet 4.5 retires on 30 November 2026 (in 30 days): Anthropic stops serving it then. "
        "Claude Sonnet 4.6 (claude-sonnet-4-6) replaces it; choose it for this conversation before then.")
    assert "(tomorrow)" in (retirement_notice(SONNET, "Anthropic", date(2026, 11, 29)) or "")


def test_on_the_day_and_after_it_says_retired_and_without_a_successor_asks_for_another_model() -> None:
    assert retirement_notice(SONNET, "Anthropic", ON) == (
        "Claude Sonnet 4.5 was retired on 30 November 2026: Anthropic may refuse it. "
        "Claude Sonnet 4.6 (claude-sonnet-4-6) replaces it; choose it for this conversation.")
    orphan = replace(SONNET, display_name=None, retirement=Retirement(ON))
    assert retirement_notice(orphan, "Anthropic", date(2027, 3, 1)) == (
        "claude-sonnet-4-5-20250929 was retired on 30 November 2026: Anthropic may refuse it. "
        "Choose another model for this conversation.")


def test_a_404_for_a_retiring_model_is_explained_and_keeps_the_request_id() -> None:
    err = ModelNotFound("Anthropic does not know that model or endpoint: model: claude-sonnet-4-5-20250929")
    err.with_request_id("req_1")
    after = explained(err, SONNET, "Anthropic", date(2026, 12, 2))
    assert isinstance(after, ModelRetired) and after.kind == "invalid_response"
    assert (after.provider_id, after.successor, after.successor_name) == ("anthropic", "claude-sonnet-4-6",
                                                                          "Claude Sonnet 4.6")
    assert after.message == (
        "Claude Sonnet 4.5 was retired on 30 November 2026 and Anthropic no longer serves it. Claude Sonnet 4.6 "
        "(claude-sonnet-4-6) replaces it: choose it for this conversation, then Retry (your message is kept). "
        "(request id req_1)")
    early = explained(ModelNotFound("gone"), SONNET, "Anthropic", date(2026, 11, 1)).message
    assert early.startswith("Anthropic no longer serves Claude Sonnet 4.5 (its retirement was announced for "
                            "30 November 2026).")


@pytest.mark.parametrize("err", [InvalidResponse("refused"), RateLimited(3)])
def test_other_errors_and_models_without_a_retirement_stay_as_they_are(err: InvalidResponse) -> None:
    assert explained(err, SONNET, "Anthropic", ON) is err
    gone = ModelNotFound("Anthropic does not know that model or endpoint: model: claude-nope")
    assert explained(gone, replace(SONNET, retirement=None), "Anthropic", ON) is gone


def test_each_conversation_is_told_once() -> None:
    notices = RetirementNotices()
    first = notices.notice("s1", SONNET, "Anthropic", ON)
    assert isinstance(first, Notice) and first.warning and "was retired" in first.message
    assert notices.notice("s1", SONNET, "Anthropic", ON) is None
    assert notices.notice("s2", SONNET, "Anthropic", ON) is not None  # another conversation
    assert notices.notice("s1", replace(SONNET, id="claude-opus-4-5-20251101"), "Anthropic", ON) is not None


def _retiring_world(on: date) -> TurnWorld:
    world = make_world()
    world.clock.current = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
    big = world.models.get("anthropic", "claude-big")
    world.models.upsert(replace(big, retirement=Retirement(on, "claude-haiku", "Claude Haiku")))
    return world


def test_a_turn_on_a_retiring_model_warns_once_per_conversation_before_its_request() -> None:
    world = _retiring_world(ON)
    world.adapter().scripts.extend([reply("One."), reply("Two.")])
    first = asyncio.run(world.turn("Hello"))
    warned = [e for e in first if isinstance(e, Notice) and e.warning]
    assert [e.message for e in warned] == [
        "Claude Big retires on 30 November 2026 (in 2 days): Anthropic stops serving it then. Claude Haiku "
        "(claude-haiku) replaces it; choose it for this conversation before then."]
    second = asyncio.run(world.turn("Again"))
    assert not any(isinstance(e, Notice) and "retire" in e.message for e in second)
    assert [m.content for m in world.stored() if m.type is MessageType.AI_RESPONSE] == ["One.", "Two."]


def test_a_turn_refused_with_404_says_the_model_retired_and_keeps_the_message() -> None:
    world = _retiring_world(date(2026, 11, 1))
    world.adapter().scripts.append(ModelNotFound("Anthropic does not know that model or endpoint: model: x"))
    events = asyncio.run(world.turn("Still there?"))
    error = next(e for e in events if isinstance(e, ChatError))
    assert error.message.startswith("Claude Big was retired on 1 November 2026 and Anthropic no longer serves it. "
                                    "Claude Haiku (claude-haiku) replaces it")
    assert [m.content for m in world.stored() if m.type is MessageType.USER] == ["Still there?"]



def test_the_day_is_written_from_its_own_english_month_names() -> None:
    """Not strftime's %B, which follows the locale the desktop app sets (Qt sets the user's at start)."""
    from domain.retirement import day_text

    assert day_text(ON) == "30 November 2026" and day_text(date(2026, 6, 15), short=True) == "15 Jun 2026"
    assert [day_text(date(2027, m, 1), short=True).split()[1] for m in range(1, 13)] == [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
