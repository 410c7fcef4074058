"""Fakes for the turn machinery: a scripted model adapter, its factory, and a tool executor."""

from __future__ import annotations

import asyncio
import inspect
import itertools
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from data.providers.rules import PROVIDER_RULES
from domain.events import StreamDone, StreamEvent, TextDelta, ToolCallRequested, UsageReported
from domain.models import AiModel, Message, ModelCapabilities, ModelId, Provider, ServerWindow, ToolDefinition, Usage
from domain.provider_ports import ToolContext, ToolOutcome
from domain.settings import Deadlines
from domain.web import WebSearchSettings


@dataclass(frozen=True)
class SentRequest:
    """One streaming request as the adapter received it."""

    model_id: ModelId
    system_prompt: str | None
    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...]
    max_output_tokens: int
    reasoning: str = "auto"
    capabilities: ModelCapabilities | None = None


class Hang:
    """A script step that waits until released (or forever), to test cancellation midway."""

    def __init__(self) -> None:
        self.reached = asyncio.Event()
        self.release = asyncio.Event()


class Apart:
    """A script step that lets the turn take what arrived before the next event comes (text deltas that arrive
    together are handed over as one, as from a provider's burst)."""


APART = Apart()
ScriptStep = StreamEvent | Exception | Hang | Apart
Script = list[ScriptStep] | Exception


def reply(text: str, *, input_tokens: int = 0, output_tokens: int = 10, stop: str = "end_turn") -> list[ScriptStep]:
    """A script for a plain text answer with usage."""
    return [TextDelta(text), UsageReported(Usage(input_tokens, output_tokens)), StreamDone(stop)]  # type: ignore[arg-type]


def tool_round(*calls: tuple[str, str, Mapping[str, Any]], text: str = "", input_tokens: int = 0) -> list[ScriptStep]:
    """A script for an answer that calls tools: (call_id, name, input) each."""
    steps: list[ScriptStep] = [TextDelta(text)] if text else []
    steps += [ToolCallRequested(cid, name, dict(args)) for cid, name, args in calls]
    steps += [UsageReported(Usage(input_tokens, 5)), StreamDone("tool_use")]
    return steps


class FakeModelApiAdapter:
    """Plays queued scripts, one per streaming request, and records every request and completion prompt."""

    def __init__(self, default_completion: str | None = None) -> None:
        self.scripts: deque[Script] = deque()
        self.requests: list[SentRequest] = []
        self.completions: deque[str | Exception] = deque()
        self.default_completion = default_completion
        self.completion_prompts: list[tuple[ModelId, str, str | None, int]] = []
        self.models: list[AiModel] = []
        self.server_windows: dict[ModelId, ServerWindow] = {}
        self.list_calls = 0
        self.list_error: Exception | None = None
        self.attachment_counts: dict[str, int] = {}  # sha256 -> what the provider's count endpoint answers
        self.counted: list[str] = []  # the attachments counted, in order
        self.web_searches: list[WebSearchSettings | None] = []  # each request's web search (None: off)

    def send_message_stream(
        self,
        *,
        model_id: ModelId,
        system_prompt: str | None,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        max_output_tokens: int,
        deadlines: Deadlines | None = None,
        reasoning: str = "auto",
        capabilities: ModelCapabilities | None = None,
        cache_key: str | None = None,
        web_search: WebSearchSettings | None = None,
    ) -> AsyncIterator[StreamEvent]:
        self.web_searches.append(web_search)
        self.requests.append(
            SentRequest(model_id, system_prompt, tuple(messages), tuple(tools), max_output_tokens, reasoning,
                        capabilities)
        )
        if not self.scripts:
            raise AssertionError("FakeModelApiAdapter: a request arrived but no script is queued")
        return self._play(self.scripts.popleft())

    async def _play(self, script: Script) -> AsyncIterator[StreamEvent]:
        if isinstance(script, Exception):
            raise script
        for step in script:
            if isinstance(step, Hang):
                step.reached.set()
                await step.release.wait()
            elif isinstance(step, Apart):
                await asyncio.sleep(0)
            elif isinstance(step, Exception):
                raise step
            else:
                yield step

    async def generate_simple_completion(
        self, model_id: ModelId, prompt: str, system: str | None = None, max_tokens: int = 2048
    ) -> str:
        self.completion_prompts.append((model_id, prompt, system, max_tokens))
        if not self.completions and self.default_completion is not None:
            return self.default_completion
        if not self.completions:
            raise AssertionError("FakeModelApiAdapter: a completion was requested but none is queued")
        item = self.completions.popleft()
        if isinstance(item, Exception):
            raise item
        return item

    async def count_attachment_tokens(self, model_id: ModelId, attachment: Any) -> int | None:
        """What `attachment_counts` says for the attachment (None: no count endpoint)."""
        self.counted.append(attachment.sha256)
        return self.attachment_counts.get(attachment.sha256)

    async def server_window(self, model_id: ModelId) -> ServerWindow | None:
        """What `server_windows` says for the model (None: not a local server)."""
        return self.server_windows.get(model_id)

    async def list_models(self) -> list[AiModel]:
        self.list_calls += 1
        if self.list_error is not None:
            raise self.list_error
        return list(self.models)


class FakeAdapterFactory:
    """Hands out one fake adapter per provider id and records the keys it was given."""

    def __init__(self, default_completion: str | None = None) -> None:
        self.adapters: dict[str, FakeModelApiAdapter] = {}
        self.keys_seen: list[tuple[str, str | None]] = []
        self.default_completion = default_completion

    def adapter(self, provider_id: str) -> FakeModelApiAdapter:
        return self.adapters.setdefault(provider_id, FakeModelApiAdapter(self.default_completion))

    def create(self, provider: Provider, api_key: str | None) -> FakeModelApiAdapter:
        self.keys_seen.append((provider.id, api_key))
        return self.adapter(provider.id)


ToolHandler = Callable[[Mapping[str, Any], ToolContext], "ToolOutcome | str | Awaitable[ToolOutcome | str]"]


@dataclass
class FakeToolExecutor:
    """Runs hand-written handlers by name; unknown names and bad input become error outcomes, like the real one."""

    handlers: dict[str, ToolHandler] = field(default_factory=dict)
    calls: list[tuple[str, dict[str, Any], ToolContext]] = field(default_factory=list)

    def definitions(self, enabled: Sequence[str] | None = None) -> Sequence[ToolDefinition]:
        names = [n for n in self.handlers if enabled is None or n in enabled]
        return [ToolDefinition(n, f"The {n} tool.", {"type": "object", "properties": {}}) for n in names]

    async def execute(self, name: str, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutcome:
        self.calls.append((name, dict(arguments), context))
        handler = self.handlers.get(name)
        if handler is None:
            return ToolOutcome(f"Unknown tool {name!r}.", is_error=True)
        result = handler(arguments, context)
        if inspect.isawaitable(result):  # an async handler (a long tool that reports progress, or hangs)
            result = await result
        return ToolOutcome(result) if isinstance(result, str) else result


# --- a whole turn machinery wired with fakes ----------------------------------------------------

@dataclass
class TurnWorld:
    """Every port of SendMessageUseCase as a fake, the real context engine, and the use case itself."""

    sessions: Any
    messages: Any
    agents: Any
    providers: Any
    models: Any
    keys: Any
    adapters: FakeAdapterFactory
    tools: FakeToolExecutor
    memories: Any
    settings: Any
    calibration: Any
    estimator: Any
    pruner: Any
    summarizer: Any
    clock: Any
    send: Any
    store: Any = None
    contexts: Any = None
    planner: Any = None
    auto_compact: Any = None
    status: Any = None
    counts: Any = None
    evidence: Any = None

    def adapter(self, provider_id: str = "anthropic") -> FakeModelApiAdapter:
        return self.adapters.adapter(provider_id)

    def stored(self, session_id: str = "s1") -> list[Message]:
        return list(self.messages.snapshot(session_id))

    async def turn(self, text: str, session_id: str = "s1", **choice: Any) -> list[Any]:
        """Runs one turn to its end and returns every event."""
        return [event async for event in self.send(session_id, text, **choice)]

    def context(self, session_id: str = "s1", **choice: Any) -> Any:
        """The SessionContext the next request would be built from."""
        return self.contexts.load(session_id, strict=False, **choice)


def save_memory_handler(memories: Any, clock: Any) -> ToolHandler:
    """A save_memory tool that really stores the memory in the given (fake) repository."""
    from domain.models import Memory

    def handle(arguments: Mapping[str, Any], context: ToolContext) -> ToolOutcome | str:
        content = arguments.get("content")
        if not isinstance(content, str) or not content.strip():
            return ToolOutcome("save_memory needs a non-empty 'content' string.", is_error=True)
        memory = Memory(f"mem{len(memories.memories) + 1}", content, clock.now(), context.agent_id, context.session_id)
        memories.add(memory)
        return f"Saved (id {memory.id})."

    return handle


def make_world(
    *,
    window: int | None = 200_000,
    small_window: int = 8_000,
    settings: Any = None,
    summaries: tuple[str | Exception, ...] = (),
    handlers: dict[str, ToolHandler] | None = None,
    session: Any = None,
    every_turn: tuple[str, ...] = (),
    leases: Any = None,
    search: Any = None,
) -> TurnWorld:
    """Two providers: anthropic (claude-big, default; claude-haiku) and openai (gpt-small, a small window);
    `every_turn`: the provider ids whose API takes every turn's reasoning back (tests.fake_thinking_rules);
    `leases`: a TurnLeases the turn holds the conversation through (a TurnGate polling every 10 ms); `search`: the
    SearchBacklog the upkeep keeps after each turn."""
    from domain.chat.provider_numbers import ProviderNumbers
    from domain.chat.request import RequestPlanner
    from domain.chat.turn_gate import TurnGate
    from domain.chat.turn_store import TurnStore
    from domain.chat.upkeep import ContextUpkeep
    from domain.context.builder import CompactAwareMessageBuilder
    from domain.context.context_loader import SessionContextLoader
    from domain.context.estimator import TokenEstimator
    from domain.context.pruner import ToolResultPruner
    from domain.models import Agent, ProviderType
    from domain.services.adapters import ProviderAdapters
    from domain.settings import ContextSettings
    from domain.usecases.auto_compact import AutoCompactUseCase
    from domain.usecases.context_status import GetContextStatusUseCase
    from domain.usecases.discover_model import DiscoverModelUseCase
    from domain.usecases.generate_title import GenerateTitleUseCase
    from domain.usecases.memory_flush import MemoryFlushUseCase
    from domain.usecases.send_message import SendMessageUseCase
    from tests.fake_thinking_rules import FakeThinkingRules
    from tests.fakes import (
        FakeAgentRepository,
        FakeApiKeyStorage,
        FakeCalibrationStore,
        FakeClock,
        FakeMemoryRepository,
        FakeMessageRepository,
        FakeModelRepository,
        FakeProviderRepository,
        FakeSessionRepository,
        FakeSettingsRepository,
        FakeSummarizer,
        make_session,
    )
    from tests.fakes_numbers import FakeAttachmentCounts, FakeCutEvidence
    from tests.fakes_uow import FakeUnitOfWork

    clock = FakeClock()
    agents = FakeAgentRepository([Agent(id="default", name="Default", system_prompt="You are helpful.")])
    sessions = FakeSessionRepository(agents=agents)
    sessions.create(session or make_session("s1"))
    messages = FakeMessageRepository(sessions=sessions)
    providers = FakeProviderRepository([
        Provider("anthropic", "Anthropic", ProviderType.ANTHROPIC),
        Provider("openai", "OpenAI", ProviderType.OPENAI),
    ])
    models = FakeModelRepository([
        AiModel("claude-big", "Claude Big", "anthropic", is_default=True, context_window_size=window,
                max_output_tokens=8_192),
        AiModel("claude-haiku", "Claude Haiku", "anthropic", context_window_size=window),
        AiModel("gpt-small", "GPT Small", "openai", is_default=True, context_window_size=small_window),
    ])
    keys = FakeApiKeyStorage()
    keys.set("anthropic", "sk-ant-test")
    keys.set("openai", "sk-openai-test")
    adapters = FakeAdapterFactory(default_completion="Untitled test chat")
    memories = FakeMemoryRepository()
    tools = FakeToolExecutor(dict(handlers or {}))
    tools.handlers.setdefault("save_memory", save_memory_handler(memories, clock))
    settings_repo = FakeSettingsRepository(settings or ContextSettings())
    calibration = FakeCalibrationStore()
    estimator = TokenEstimator(calibration, PROVIDER_RULES)
    pruner = ToolResultPruner(settings_repo.settings)
    summarizer = FakeSummarizer(*summaries)
    store = FakeUnitOfWork(sessions, messages)
    planner = RequestPlanner(CompactAwareMessageBuilder(), pruner, estimator,
                             thinking=FakeThinkingRules(every_turn=every_turn))
    counts, evidence = FakeAttachmentCounts(), FakeCutEvidence()
    contexts = SessionContextLoader(
        store=store, sessions=sessions, messages=messages, agents=agents, providers=providers, models=models,
        memories=memories, settings=settings_repo, tools=tools, attachment_counts=counts,
    )
    by_provider = ProviderAdapters(providers, keys, adapters)
    auto_compact = AutoCompactUseCase(
        store=store, sessions=sessions, models=models, summarizer=summarizer, planner=planner, clock=clock
    )
    flush = MemoryFlushUseCase(store, sessions, by_provider, tools, clock)
    title = GenerateTitleUseCase(sessions, by_provider)
    ids = itertools.count(1)
    send = SendMessageUseCase(
        contexts=contexts, turns=TurnStore(store, sessions, messages), adapters=by_provider, tools=tools,
        models=models, upkeep=ContextUpkeep(planner, auto_compact, flush, search), title=title, clock=clock,
        new_id=lambda: f"id{next(ids)}", discover=DiscoverModelUseCase(models, by_provider),
        numbers=ProviderNumbers(counts, evidence, models),
        gate=None if leases is None else TurnGate(leases, clock, "the test process", poll_seconds=0.01),
    )
    return TurnWorld(sessions, messages, agents, providers, models, keys, adapters, tools, memories, settings_repo,
                     calibration, estimator, pruner, summarizer, clock, send, store, contexts, planner, auto_compact,
                     GetContextStatusUseCase(contexts, planner), counts, evidence)
