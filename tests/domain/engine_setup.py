"""Wires the context engine to fakes for use-case tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from data.providers.rules import PROVIDER_RULES
from domain.chat.compaction import CompactResult
from domain.chat.request import RequestPlanner
from domain.context.builder import CompactAwareMessageBuilder
from domain.context.estimator import TokenEstimator
from domain.context.pruner import ToolResultPruner
from domain.context.session_context import SessionContext
from domain.models import Agent, AiModel, Message, MessageType, Provider, ProviderType, ToolDefinition
from domain.settings import ContextSettings
from domain.usecases.auto_compact import AutoCompactUseCase
from tests.fake_thinking_rules import FakeThinkingRules
from tests.fakes import (
    FakeClock,
    FakeMessageRepository,
    FakeModelRepository,
    FakeSessionRepository,
    FakeSummarizer,
    make_session,
)
from tests.fakes_uow import FakeUnitOfWork

SONNET = AiModel(id="claude-sonnet-4-5", display_name="Sonnet", provider_id="anthropic",
                 context_window_size=10_000, max_output_tokens=8_000)
HAIKU = AiModel(id="claude-haiku-4-5", display_name="Haiku", provider_id="anthropic",
                context_window_size=200_000, max_output_tokens=8_000)


@dataclass
class Engine:
    """The use case plus every fake it talks to."""

    sessions: FakeSessionRepository = field(default_factory=FakeSessionRepository)
    messages: FakeMessageRepository | None = None
    models: FakeModelRepository = field(default_factory=lambda: FakeModelRepository([SONNET, HAIKU]))
    summarizer: FakeSummarizer = field(default_factory=lambda: FakeSummarizer(default="## Goal\nSummary."))
    estimator: TokenEstimator = field(default_factory=lambda: TokenEstimator(rules=PROVIDER_RULES))
    clock: FakeClock = field(default_factory=FakeClock)
    settings: ContextSettings = field(default_factory=ContextSettings)

    pruner: ToolResultPruner | None = None

    def __post_init__(self) -> None:
        if self.messages is None:
            self.messages = FakeMessageRepository(sessions=self.sessions)
        self.sessions.create(make_session("s1", current_provider_id="anthropic", current_model_id=SONNET.id))

    @cached_property
    def planner(self) -> RequestPlanner:
        pruner = self.pruner or ToolResultPruner(ContextSettings(pruning_enabled=False))
        return RequestPlanner(CompactAwareMessageBuilder(), pruner, self.estimator, thinking=FakeThinkingRules())

    @cached_property
    def use_case(self) -> AutoCompactUseCase:
        return AutoCompactUseCase(
            store=FakeUnitOfWork(self.sessions, self.messages), sessions=self.sessions, models=self.models,
            summarizer=self.summarizer, planner=self.planner, clock=self.clock,
        )

    def context(
        self, session_id: str, *, provider_id: str, model_id: str, system_prompt: str | None = None,
        tools: Sequence[ToolDefinition] = (),
    ) -> SessionContext:
        """The session as the planner sees it, built by hand (these tests have no agents or providers)."""
        session = self.sessions.get(session_id)
        assert session is not None and self.messages is not None
        boundary = session.boundary
        return SessionContext(
            session=session, agent=Agent("a", "Agent"), settings=self.settings, system_prompt=system_prompt,
            tools=tuple(tools), provider=Provider(provider_id, provider_id, ProviderType.OPENAI_COMPATIBLE),
            model=self.models.resolve(provider_id, model_id),
            messages=tuple(self.messages.since(session_id, boundary or 0)),
            pinned=tuple(self.messages.pinned(session_id)) if boundary is not None else (),
        )

    async def compact(
        self, session_id: str, *, provider_id: str, model_id: str, system_prompt: str | None = None,
        tools: Sequence[ToolDefinition] = (), **options: object,
    ) -> CompactResult:
        """Runs AutoCompactUseCase on the session as it is stored now."""
        ctx = self.context(session_id, provider_id=provider_id, model_id=model_id, system_prompt=system_prompt,
                           tools=tools)
        return await self.use_case(ctx, **options)  # type: ignore[arg-type]

    def say(self, kind: MessageType, text: str, **fields: object) -> Message:
        assert self.messages is not None
        message = Message(id=f"m{self.messages.count('s1') + 1}", session_id="s1", type=kind, content=text,
                          created_at=self.clock.now())
        from dataclasses import replace
        return self.messages.add(replace(message, **fields))  # type: ignore[arg-type]

    def chat(self, turns: int, words: int = 100) -> None:
        """Appends `turns` user/assistant exchanges of about 2 x words tokens each."""
        assert self.messages is not None
        start = self.messages.count("s1")
        for i in range(turns):
            self.say(MessageType.USER, f"question {start + i}: " + "word " * words)
            self.say(MessageType.AI_RESPONSE, f"answer {start + i}: " + "word " * words)
