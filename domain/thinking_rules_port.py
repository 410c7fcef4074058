"""The port through which the domain asks the provider rules about reasoning (data/providers/thinking_rules.py):
how much output room thinking takes above the reply, and whether an API wants every turn's reasoning back."""

from __future__ import annotations

from typing import Protocol

from domain.models import AiModel, Provider


class ThinkingRules(Protocol):
    """The reasoning rules of the provider a request goes to; no provider name is known in the domain."""

    def thinking_room(self, provider: Provider | None, model: AiModel | None, level: str) -> int:
        """Output tokens the provider's adapter adds for thinking above the reply's own at `level` (0: none)."""
        ...

    def echoes_every_turn(self, provider: Provider | None) -> bool:
        """Whether the provider's API takes back the model's reasoning of every earlier turn, each in its place
        (True), or only that of the tool loop under way (False: it strips or ignores older turns')."""
        ...
