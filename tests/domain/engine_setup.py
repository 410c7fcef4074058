"""Wires the context engine to fakes for use-case tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from domain.context.estimator import TokenEstimator
from domain.context.settings_source import fixed_settings
from domain.models import AiModel, Message, MessageType
from domain.settings import ContextSettings
from domain.usecases.auto_compact import AutoCompactUseCase
from tests.fakes import (
    FakeClock,
    FakeMessageRepository,
    FakeModelRepository,
    FakeSessionRepository,
    FakeSummarizer,
    make_session,
)

SONNET = AiModel(id="claude-sonnet-4-5", display_name="Sonnet", provider_id="anthropic",
                 context_window_size=10_000, max_output_tokens=8_000)
HAIKU = AiModel(id="claude-haiku-4-5", display_name="Haiku", provider_id="anthropic",
                context_window_size=200_000, max_output_tokens=8_000)


@dataclass
class Engine:
    """The use case plus every fake it talks to."""

    sessions: FakeSessionRepository = field(default_factory=FakeSessionRepository)
    messages: FakeMessageRepository = field(default_factory=FakeMessageRepository)
    models: FakeModelRepository = field(default_factory=lambda: FakeModelRepository([SONNET, HAIKU]))
    summarizer: FakeSummarizer = field(default_factory=lambda: FakeSummarizer(default="## Goal\nSummary."))
    estimator: TokenEstimator = field(default_factory=TokenEstimator)
    clock: FakeClock = field(default_factory=FakeClock)
    settings: ContextSettings = field(default_factory=ContextSettings)

    def __post_init__(self) -> None:
        self.sessions.create(make_session("s1", current_provider_id="anthropic", current_model_id=SONNET.id))

    @cached_property
    def compact(self) -> AutoCompactUseCase:
        return AutoCompactUseCase(self.sessions, self.messages, self.models, self.summarizer, self.estimator,
                                  self.clock, fixed_settings(self.settings))

    def say(self, kind: MessageType, text: str, **fields: object) -> Message:
        message = Message(id=f"m{self.messages.count('s1') + 1}", session_id="s1", type=kind, content=text)
        from dataclasses import replace
        return self.messages.add(replace(message, **fields))  # type: ignore[arg-type]

    def chat(self, turns: int, words: int = 100) -> None:
        """Appends `turns` user/assistant exchanges of about 2 x words tokens each."""
        start = self.messages.count("s1")
        for i in range(turns):
            self.say(MessageType.USER, f"question {start + i}: " + "word " * words)
            self.say(MessageType.AI_RESPONSE, f"answer {start + i}: " + "word " * words)
