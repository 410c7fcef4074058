"""A hand-written ThinkingRules for domain tests: a fixed thinking room per level, and the providers (by id) whose
API takes every turn's reasoning back."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from domain.models import AiModel, Provider, ThinkingForm

ROOM = {"low": 2_048, "medium": 8_192, "high": 16_384, "max": 32_000, "auto": 16_384}


class FakeThinkingRules:
    """`room` per reasoning level for a model that thinks (none at off unless it always thinks, none at auto unless
    it thinks unasked); `every_turn`: the provider ids whose API wants every turn's reasoning back. Records the
    levels it was asked about."""

    def __init__(self, room: Mapping[str, int] | None = None, every_turn: Iterable[str] = ()) -> None:
        self.room = dict(ROOM if room is None else room)
        self.every_turn = frozenset(every_turn)
        self.asked: list[str] = []

    def thinking_room(self, provider: Provider | None, model: AiModel | None, level: str) -> int:
        """The table's room for the level, by the model's thinking form."""
        self.asked.append(level)
        caps = model.capabilities if model is not None else None
        if caps is None or caps.thinking is ThinkingForm.NONE:
            return 0
        if level == "off":
            return self.room["low"] if caps.thinking is ThinkingForm.ALWAYS_ON else 0
        if level == "auto" and not caps.thinks_unasked:
            return 0
        return self.room.get(level, self.room["auto"])

    def echoes_every_turn(self, provider: Provider | None) -> bool:
        """Whether the provider is one of `every_turn`."""
        return provider is not None and provider.id in self.every_turn
