"""The four context strategies of the replay benchmark, wired by composition around the real use cases."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from app.adapter_cache import LazyAdapterFactory
from app.container import SystemClock
from bench.replay_timing import EngineTimer, TimedPruner, timed_builder, timed_estimator
from data.providers.rules import PROVIDER_RULES
from data.providers.thinking_rules import ProviderThinkingRules
from data.storage import Storage
from data.tools import BuiltinTools
from domain.chat.compaction import CompactResult
from domain.chat.request import RequestPlanner
from domain.chat.turn_store import TurnStore
from domain.chat.upkeep import ContextUpkeep
from domain.context.builder import BuiltRequest, CompactAwareMessageBuilder
from domain.context.context_loader import SessionContextLoader
from domain.context.estimator import TokenEstimator, chars_over_four
from domain.context.pruner import ToolResultPruner
from domain.context.session_context import SessionContext
from domain.models import ModelId, ProviderApi, ProviderId, ProviderType, ToolDefinition
from domain.ports import KeySource
from domain.services.adapters import ProviderAdapters
from domain.services.summarizer import AdapterSummarizer
from domain.settings import ContextSettings
from domain.usecases.auto_compact import AutoCompactUseCase
from domain.usecases.create_session import CreateSessionUseCase
from domain.usecases.generate_title import GenerateTitleUseCase
from domain.usecases.memory_flush import MemoryFlushUseCase
from domain.usecases.send_message import SendMessageUseCase

NO_TRUNCATION = 10**12


@dataclass(frozen=True)
class Strategy:
    """One way of managing the context: which settings and which engine parts are switched on."""

    name: str
    settings: ContextSettings
    compaction: bool  # summarize after responses (the RFC's auto-compaction)
    reactive: bool  # Palimpsest's proactive/overflow recovery: forced compaction, retry, fit to the window
    content_aware: bool  # content-aware estimator with per-model calibration (else the seeds' characters/4)
    unlimited: bool = False  # the server enforces no window (the cost counterfactual)


def strategies() -> list[Strategy]:
    """naive, its unlimited-window counterfactual, truncate+compact, +pruning, full (Palimpsest's defaults)."""
    off = ContextSettings(tool_result_max_chars=NO_TRUNCATION, pruning_enabled=False, memory_flush_enabled=False)
    rfc = ContextSettings(pruning_enabled=False, memory_flush_enabled=False)
    pruning = ContextSettings(memory_flush_enabled=False, prune_min_clear_chars=0)
    return [
        Strategy("naive", off, compaction=False, reactive=False, content_aware=False),
        Strategy("naive (unlimited window)", off, compaction=False, reactive=False, content_aware=False,
                 unlimited=True),
        Strategy("truncate+compact", rfc, compaction=True, reactive=False, content_aware=False),
        Strategy("+pruning", pruning, compaction=True, reactive=False, content_aware=False),
        Strategy("full", ContextSettings(), compaction=True, reactive=True, content_aware=True),
    ]


class CharsOverFourEstimator(TokenEstimator):
    """The seeds' estimator: characters/4 for every text, never calibrated."""

    def estimate_text(self, text: str) -> int:
        """One token per four characters."""
        return chars_over_four(text)

    def calibrate(self, model_key: str, reported_input_tokens: int, estimated_tokens: int) -> None:
        """Learns nothing."""


class NoFitBuilder(CompactAwareMessageBuilder):
    """A builder that never cuts a request down to a budget (no reactive fallback)."""

    def fit_to_budget(
        self,
        request: BuiltRequest,
        budget_tokens: int,
        estimator: TokenEstimator,
        tools: Sequence[ToolDefinition] = (),
        model_key: str | None = None,
    ) -> BuiltRequest:
        """The request unchanged."""
        return request


class AfterResponseOnly(AutoCompactUseCase):
    """Compaction only as the RFC has it: after a response; the forced (overflow / oversized) paths do nothing."""

    async def __call__(
        self, ctx: SessionContext, *, force: bool = False, instructions: str | None = None, trigger: str = "auto"
    ) -> CompactResult:
        """Delegates for trigger="auto" only."""
        if trigger != "auto":
            return CompactResult(False, reason="disabled_in_strategy")
        return await super().__call__(ctx, force=force, instructions=instructions, trigger=trigger)


class NeverCompact(AutoCompactUseCase):
    """No compaction at all (naive)."""

    def due(self, ctx: SessionContext, used: int) -> bool:
        """Never."""
        return False

    async def __call__(
        self, ctx: SessionContext, *, force: bool = False, instructions: str | None = None, trigger: str = "auto"
    ) -> CompactResult:
        """Does nothing."""
        return CompactResult(False, reason="disabled_in_strategy")


class BenchKeys:
    """An in-memory ApiKeyStorage with one made-up key per provider (the fake servers check it)."""

    def __init__(self, keys: dict[str, str]) -> None:
        self._keys = dict(keys)

    def get(self, provider_id: ProviderId) -> str | None:
        """The key, if set."""
        return self._keys.get(provider_id)

    def source(self, provider_id: ProviderId) -> KeySource | None:
        """Always the keychain, for a set key."""
        return "keychain" if provider_id in self._keys else None

    def set(self, provider_id: ProviderId, key: str) -> None:
        """Stores a key."""
        self._keys[provider_id] = key

    def delete(self, provider_id: ProviderId) -> None:
        """Forgets a key."""
        self._keys.pop(provider_id, None)

    def keychain_problem(self) -> str | None:
        """None: this storage always works."""
        return None

    def env_var_names(self, provider_id: ProviderId) -> tuple[str, ...]:
        """None: keys here never come from the environment."""
        return ()


@dataclass(frozen=True)
class Endpoint:
    """Where a provider's fake server listens and which models it serves."""

    provider_id: ProviderId
    base_url: str
    model_id: ModelId
    window: int


class StrategyEnv:
    """One strategy's app: its own store under `home`, the app's SDK adapter factory, the engine parts it switches
    on (the rest wired as app/container.py wires it); `reasoning`: the app's reasoning level (None: the default)."""

    def __init__(self, strategy: Strategy, home: Path, endpoints: Sequence[Endpoint], keys: BenchKeys,
                 reasoning: str | None = None, *, timed: bool = True) -> None:
        self.strategy = strategy
        self.storage = Storage.open(home)
        self.clock = SystemClock()
        s = self.storage
        settings = strategy.settings if reasoning is None else replace(strategy.settings, reasoning=reasoning)
        s.settings.save_context_settings(settings)
        for endpoint in endpoints:
            provider = s.providers.get(endpoint.provider_id)
            assert provider is not None, endpoint.provider_id
            # OpenAI as on api.openai.com: the Responses API (a 127.0.0.1 base URL alone would mean Chat Completions)
            api = ProviderApi.RESPONSES if provider.type is ProviderType.OPENAI else provider.api
            s.providers.update(replace(provider, base_url=endpoint.base_url, api=api))
            s.models.set_user_window(endpoint.provider_id, endpoint.model_id, endpoint.window)
        self.adapter_factory = LazyAdapterFactory()  # the app's: SDK adapters reused
        adapters = ProviderAdapters(s.providers, keys, self.adapter_factory)
        self.engine_timer = timer = EngineTimer()  # (timed=False: the app's own classes, the timer stays at 0)
        estimator_class: type[TokenEstimator] = TokenEstimator if strategy.content_aware else CharsOverFourEstimator
        builder_class: type[CompactAwareMessageBuilder] = (CompactAwareMessageBuilder if strategy.reactive
                                                           else NoFitBuilder)
        if timed:
            estimator_class = timed_estimator(estimator_class, timer)
            builder_class = timed_builder(builder_class, timer)
        # the provider rules too: they price attachments and name the summary's cheaper sibling, as in the app
        estimator = estimator_class(s.calibration if strategy.content_aware else None, PROVIDER_RULES)
        pruner = TimedPruner(settings, timer) if timed else ToolResultPruner(settings)
        planner = RequestPlanner(builder_class(), pruner, estimator, thinking=ProviderThinkingRules())
        compact_class = AutoCompactUseCase if strategy.reactive else AfterResponseOnly
        if not strategy.compaction:
            compact_class = NeverCompact
        auto_compact = compact_class(
            store=s.unit_of_work, sessions=s.sessions, models=s.models, summarizer=AdapterSummarizer(adapters),
            planner=planner, clock=self.clock,
        )
        tools = BuiltinTools(s.memories, s.messages, self.clock)
        self.create_session = CreateSessionUseCase(s.sessions, s.agents, self.clock)
        contexts = SessionContextLoader(
            store=s.unit_of_work, sessions=s.sessions, messages=s.messages, agents=s.agents, providers=s.providers,
            models=s.models, memories=s.memories, settings=s.settings, tools=tools,
        )
        flush = MemoryFlushUseCase(s.unit_of_work, s.sessions, adapters, tools, self.clock)
        self.send_message = SendMessageUseCase(
            contexts=contexts, turns=TurnStore(s.unit_of_work, s.sessions, s.messages), adapters=adapters,
            tools=tools, models=s.models, upkeep=ContextUpkeep(planner, auto_compact, flush, s.search_backlog),
            title=GenerateTitleUseCase(s.sessions, adapters), clock=self.clock,
        )

    async def aclose(self) -> None:
        """Closes the SDK clients' connections (on the loop that used them), then releases the store."""
        try:
            await self.adapter_factory.aclose()
        finally:
            self.storage.close()
