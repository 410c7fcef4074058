"""A paste too long for a message: not put in the box; the notice says what a message and the model's context window
hold, and offers to attach the text as a file instead."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from ui.viewmodels.chat import ChatViewModel
from ui.widgets.composer import PASTE_LIMIT, Composer

PASTED_TEXT_NAME = "pasted text.txt"
NOTICE_MS = 15_000  # long enough to read it and decide


def oversized_notice(chars: int, model: str | None, window: int | None) -> str:
    """What the notice says about a paste of `chars` characters for a model with a context window of `window`."""
    held = f"a message holds at most {PASTE_LIMIT:,}"
    if model and window:
        held += f", and the context window of {model} is {window:,} tokens"
    elif model:
        held += f"; the context window of {model} is not known"
    return f"This paste is {chars:,} characters: {held}. Attach it as a text file instead?"


class OversizedPaste(QObject):
    """Connects the composer's oversized paste to a notice with an "Attach as a file" action."""

    def __init__(self, composer: Composer, vm: ChatViewModel, notify: Callable[..., object]) -> None:
        super().__init__(composer)
        self._vm, self._notify = vm, notify
        self.pending: str | None = None  # the text offered as a file, until attached or the notice goes
        composer.edit.oversized_paste.connect(self.offer)

    def offer(self, text: str) -> None:
        """Shows the notice for a paste too long for a message."""
        self.pending = text
        choice = self._vm.state.selected_choice
        message = oversized_notice(len(text), choice.label if choice else None, choice.window if choice else None)
        self._notify(message, action="Attach as a file", on_action=self.attach, on_expire=self._forget, ms=NOTICE_MS)

    def attach(self) -> None:
        """Attaches the offered text as a text file (taken in on the worker, like a pasted image)."""
        text, self.pending = self.pending, None
        if text is not None:
            self._vm.attach_image(text.encode("utf-8"), PASTED_TEXT_NAME)  # the view model's bytes intake

    def _forget(self) -> None:
        self.pending = None
