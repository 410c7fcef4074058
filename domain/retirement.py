"""A model its vendor retires: a notice in the weeks before (once per conversation), and a 404 that says why."""

from __future__ import annotations

import threading
from datetime import date

from domain.errors import ModelNotFound, ModelRetired, PalimpsestError
from domain.events import Notice
from domain.provider_models import AiModel, Retirement

NOTICE_DAYS = 30  # a conversation on a model retiring this soon (or retired) is told so when a turn starts
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")  # not strftime's %B: the desktop app sets the user's locale, the sentence is English


def day_text(on: date, *, short: bool = False) -> str:
    """'30 November 2026' ('30 Nov 2026' when `short`), in English whatever the process's locale."""
    month = MONTHS[on.month - 1]
    return f"{on.day} {month[:3] if short else month} {on.year}"


def _name(model: AiModel) -> str:
    return model.display_name or model.id


def _successor(retirement: Retirement) -> str | None:
    """The successor as the user reads it: its name and id, or its id alone; None when the vendor named none."""
    if retirement.successor is None:
        return None
    if retirement.successor_name:
        return f"{retirement.successor_name} ({retirement.successor})"
    return retirement.successor


def retirement_notice(model: AiModel | None, provider_name: str, today: date) -> str | None:
    """What to tell a conversation about to use `model`, when its vendor retires it within NOTICE_DAYS or has."""
    retirement = model.retirement if model is not None else None
    if model is None or retirement is None:
        return None
    days = (retirement.on - today).days
    if days > NOTICE_DAYS:
        return None
    successor = _successor(retirement)
    soon = " before then" if days > 0 else ""
    choose = (f"{successor} replaces it; choose it for this conversation{soon}." if successor
              else f"Choose another model for this conversation{soon}.")
    if days > 0:
        when = "tomorrow" if days == 1 else f"in {days} days"
        return (f"{_name(model)} retires on {day_text(retirement.on)} ({when}): {provider_name} stops serving it then. "
                f"{choose}")
    return f"{_name(model)} was retired on {day_text(retirement.on)}: {provider_name} may refuse it. {choose}"


def explained(err: PalimpsestError, model: AiModel | None, provider_name: str, today: date) -> PalimpsestError:
    """`err` (a turn's failure) in words that name the cause when the provider does not know a model its vendor
    retires (ModelRetired): the date, the successor, and that the message is kept for Retry. Any other error as
    it is."""
    retirement = model.retirement if model is not None else None
    if model is None or retirement is None or not isinstance(err, ModelNotFound):
        return err
    successor = _successor(retirement)
    choose = (f"{successor} replaces it: choose it for this conversation, then Retry (your message is kept)."
              if successor else "Choose another model for this conversation, then Retry (your message is kept).")
    if retirement.passed(today):
        said = f"{_name(model)} was retired on {day_text(retirement.on)} and {provider_name} no longer serves it."
    else:
        said = (f"{provider_name} no longer serves {_name(model)} (its retirement was announced for "
                f"{day_text(retirement.on)}).")
    better = ModelRetired(f"{said} {choose}", model.provider_id, retirement.successor, retirement.successor_name)
    better.with_request_id(err.request_id)
    return better


class RetirementNotices:
    """Tells each conversation once (per run of the app) that its model is retiring or retired."""

    def __init__(self) -> None:
        self._told: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def notice(self, session_id: str, model: AiModel | None, provider_name: str, today: date) -> Notice | None:
        """The warning for this turn, or None (nothing to say, or said before in this conversation: then nothing is
        worded, since this runs every turn)."""
        if model is None or model.retirement is None or (session_id, model.id) in self._told:
            return None
        text = retirement_notice(model, provider_name, today)
        if text is None:
            return None
        with self._lock:
            if (session_id, model.id) in self._told:
                return None
            self._told.add((session_id, model.id))
        return Notice(text, warning=True)
