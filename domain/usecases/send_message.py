"""Sends one user message and runs the turn: stream, tool rounds, usage, then context upkeep and the title."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import replace

from domain.chat.records import IdFactory, MessageFactory, new_uuid
from domain.chat.request import RequestPlanner
from domain.chat.round_sender import RoundAttempt, RoundSender, compact_event, max_tokens_signal
from domain.chat.stream import RoundState, add_usage
from domain.chat.target import TurnTarget, resolve_target
from domain.chat.tool_runner import NOT_RUN_OUTPUT, ToolRunner
from domain.chat.turn import TurnProgress, chat_error, preview_of
from domain.context.builder import BuiltRequest, CompactAwareMessageBuilder
from domain.context.estimator import TokenEstimator, calibration_key
from domain.context.flush import FLUSH_PROMPT, should_flush
from domain.context.memory_section import with_memory
from domain.context.pruner import ToolResultPruner
from domain.context.settings_source import AgentContextSettings
from domain.context.truncator import ToolResultTruncator
from domain.errors import InvalidInput, NotFound, PalimpsestError
from domain.events import (
    ChatEvent,
    CompactStarted,
    ContextStatusChanged,
    MemoryFlushed,
    ResponseComplete,
    TitleGenerated,
    ToolRoundLimitReached,
)
from domain.models import (
    AgentId,
    AiModel,
    Message,
    MessageType,
    ModelId,
    ProviderId,
    Session,
    SessionId,
    ToolDefinition,
    Usage,
)
from domain.ports import (
    AgentRepository,
    ApiKeyStorage,
    Clock,
    MemoryRepository,
    MessageRepository,
    ModelApiAdapterFactory,
    ModelRepository,
    ProviderRepository,
    SessionRepository,
    SettingsRepository,
    ToolContext,
    ToolExecutor,
)
from domain.settings import ContextSettings
from domain.usecases.auto_compact import AutoCompactUseCase
from domain.usecases.generate_title import GenerateTitleUseCase
from domain.usecases.memory_flush import FLUSH_MAX_OUTPUT_TOKENS, MemoryFlushUseCase

TITLE_LOOKBACK = 12
FLUSH_TOOL_RESERVE = 256


class SendMessageUseCase:
    """One chat turn as an async generator of ChatEvents; the user's message is stored before anything else."""

    def __init__(
        self,
        *,
        sessions: SessionRepository,
        messages: MessageRepository,
        agents: AgentRepository,
        providers: ProviderRepository,
        models: ModelRepository,
        keys: ApiKeyStorage,
        adapters: ModelApiAdapterFactory,
        tools: ToolExecutor,
        memories: MemoryRepository,
        settings: SettingsRepository,
        estimator: TokenEstimator,
        pruner: ToolResultPruner,
        auto_compact: AutoCompactUseCase,
        memory_flush: MemoryFlushUseCase,
        title: GenerateTitleUseCase,
        clock: Clock,
        builder: CompactAwareMessageBuilder | None = None,
        truncator: ToolResultTruncator | None = None,
        new_id: IdFactory = new_uuid,
    ) -> None:
        self._sessions, self._messages, self._agents = sessions, messages, agents
        self._providers, self._models, self._keys, self._adapters = providers, models, keys, adapters
        self._tools, self._memories, self._estimator = tools, memories, estimator
        self._auto_compact, self._flush, self._title, self._clock = auto_compact, memory_flush, title, clock
        self._settings_for = AgentContextSettings(settings, agents)
        self._truncator, self._new_id = truncator, new_id
        self._planner = RequestPlanner(sessions, messages, builder or CompactAwareMessageBuilder(), pruner, estimator)
        self._sender = RoundSender(self._planner, models, auto_compact, estimator)

    async def __call__(
        self,
        session_id: SessionId,
        text: str,
        *,
        provider_id: ProviderId | None = None,
        model_id: ModelId | None = None,
        agent_id: AgentId | None = None,
        retry: bool = False,
    ) -> AsyncIterator[ChatEvent]:
        """Runs the turn; known failures end it with ChatError, cancellation keeps the partial reply and re-raises.

        With `retry=True` the session's last user message is answered again and `text` is ignored: nothing new is
        stored for the user, so retrying a failed turn never duplicates what they typed."""
        session = self._sessions.get(session_id)
        if session is None:
            yield chat_error(NotFound("session", session_id))
            return
        if retry:
            last = self._last_user_message(session_id)
            if last is None:
                yield chat_error(InvalidInput("There is no message to retry in this conversation."))
                return
            text = last.content
        if not text.strip():
            yield chat_error(InvalidInput("The message is empty; type something to send."))
            return
        first_exchange = self._needs_title(session_id)
        turn = TurnProgress(MessageFactory(session_id, self._clock, self._new_id), preview_of(text))
        if not retry:
            self._messages.add(turn.factory.user(text))
        try:
            async with aclosing(self._run(turn, text, first_exchange, provider_id, model_id, agent_id)) as events:
                async for event in events:  # closing `events` closes the provider's stream at once
                    yield event
        except PalimpsestError as err:
            turn.keep_partial(self._messages)
            self._touch(session_id, turn.preview)
            yield chat_error(err)
        except BaseException:  # cancelled, closed, or a bug: keep what arrived, then let it propagate
            turn.keep_partial(self._messages)
            self._touch(session_id, turn.preview)
            raise

    async def _run(
        self,
        turn: TurnProgress,
        text: str,
        first_exchange: bool,
        provider_id: ProviderId | None,
        model_id: ModelId | None,
        agent_id: AgentId | None,
    ) -> AsyncGenerator[ChatEvent, None]:
        session_id = turn.factory.session_id
        target, switched = self._choose(session_id, provider_id, model_id, agent_id)
        proactive_trigger = "model_switch" if switched else "overflow"
        turn.target = target
        settings = self._settings_for(self._require(session_id))
        system = with_memory(
            target.agent.system_prompt, self._memories.list(target.agent.id), settings.memory_section_max_chars
        )
        tools = list(self._tools.definitions(list(target.agent.enabled_tools) or None))
        adapter = self._adapters.create(target.provider, self._keys.get(target.provider.id))
        runner = ToolRunner(
            self._messages, self._tools, turn.factory, self._truncator or ToolResultTruncator(settings),
            ToolContext(session_id, target.agent.id), [t.name for t in tools],
        )
        rounds = max(1, settings.max_tool_rounds)
        total = Usage()
        attempt = RoundAttempt(target.model)
        for round_no in range(1, rounds + 1):
            turn.attempt = attempt
            sending = self._sender.send(
                adapter, session_id, attempt, system_prompt=system, tools=tools, settings=settings,
                proactive_trigger=proactive_trigger,
            )
            async with aclosing(sending) as round_events:
                async for event in round_events:
                    yield event
            reply = self._save_round(turn, attempt)
            total = add_usage(total, attempt.state.usage)
            calls = attempt.state.calls
            if not calls:
                break
            if round_no == rounds:
                for call in calls:
                    runner.store(call.id, call.name, NOT_RUN_OUTPUT.format(rounds=rounds), is_error=True)
                    turn.pending_calls.pop(call.id, None)
                yield ToolRoundLimitReached(rounds)
                break
            for call in calls:
                async for tool_event in runner.run(call):
                    yield tool_event
                turn.pending_calls.pop(call.id, None)
        self._touch(session_id, turn.preview)
        yield ResponseComplete(reply.id, total)
        async for upkeep_event in self._upkeep(turn, attempt, system, tools, settings):
            yield upkeep_event
        if first_exchange:
            title = await self._title(
                session_id, provider_id=target.provider.id, model_id=attempt.model.id, user_text=text,
                reply_text=reply.content,
            )
            if title:
                yield TitleGenerated(title)

    def _choose(
        self, session_id: SessionId, provider_id: ProviderId | None, model_id: ModelId | None, agent_id: AgentId | None
    ) -> tuple[TurnTarget, bool]:
        """Resolves agent, provider and model and stores them on the session, so a switch sticks; True when the
        session had another model before."""
        session = self._require(session_id)
        target = resolve_target(
            session, agents=self._agents, providers=self._providers, models=self._models,
            provider_id=provider_id, model_id=model_id, agent_id=agent_id,
        )
        self._sessions.update(
            replace(
                session, current_agent_id=target.agent.id, current_provider_id=target.provider.id,
                current_model_id=target.model.id,
            )
        )
        before = (session.current_provider_id, session.current_model_id)
        return target, before[1] is not None and before != (target.provider.id, target.model.id)

    def _last_user_message(self, session_id: SessionId) -> Message | None:
        """The newest stored user message of the session, looked up from the newest turns backwards."""
        total = self._messages.count(session_id)
        start = max(0, total - TITLE_LOOKBACK)
        while True:
            found = next(
                (m for m in reversed(self._messages.since(session_id, start)) if m.type is MessageType.USER), None
            )
            if found is not None or start == 0:
                return found
            start = max(0, start - 4 * TITLE_LOOKBACK)

    def _needs_title(self, session_id: SessionId) -> bool:
        """True until the session has a complete reply (looked up only while it is short)."""
        count = self._messages.count(session_id)
        if count == 0:
            return True
        if count > TITLE_LOOKBACK:
            return False
        return not any(
            m.type is MessageType.AI_RESPONSE and not m.incomplete for m in self._messages.snapshot(session_id)
        )

    def _save_round(self, turn: TurnProgress, attempt: RoundAttempt) -> Message:
        """Stores the reply and its tool calls, adds the usage to the session and feeds the calibration."""
        state: RoundState = attempt.state
        assert turn.target is not None
        provider_id, model_id = turn.target.provider.id, attempt.model.id
        reply = self._messages.add(
            turn.factory.reply(
                state.text, thinking=state.thinking, provider_id=provider_id, model_id=model_id,
                input_tokens=state.usage.input_tokens or None, output_tokens=state.usage.output_tokens or None,
            )
        )
        turn.attempt = None
        for call in state.calls:
            self._messages.add(turn.factory.tool_call(call.id, call.name, call.input, provider_id=provider_id,
                                                      model_id=model_id))
            turn.pending_calls[call.id] = call.name
        if state.text.strip():
            turn.preview = preview_of(state.text)
        usage = state.usage
        if usage.input_tokens or usage.output_tokens or usage.cache_read_tokens:
            self._sessions.add_usage(turn.factory.session_id, usage)
        if usage.input_tokens > 0 and attempt.planned is not None:
            self._estimator.calibrate(calibration_key(provider_id, model_id), usage.input_tokens,
                                      attempt.planned.raw_estimate)
        return reply

    async def _upkeep(
        self,
        turn: TurnProgress,
        attempt: RoundAttempt,
        system: str | None,
        tools: Sequence[ToolDefinition],
        settings: ContextSettings,
    ) -> AsyncIterator[ChatEvent]:
        """After the answer: the context status, the memory flush when due, then the compaction check."""
        session_id = turn.factory.session_id
        model = attempt.model
        status = self._planner.status(session_id, system_prompt=system, tools=tools, model=model, settings=settings)
        yield ContextStatusChanged(status)
        if should_flush(status.used, status.window, settings, self._require(session_id)):
            saved = await self._flush(
                session_id, provider_id=model.provider_id, model_id=model.id,
                agent_id=turn.target.agent.id if turn.target else None,
                request=self._flush_request(session_id, system, settings, model), tools=tools,
            )
            yield MemoryFlushed(saved)
        forced = max_tokens_signal(attempt, settings)
        trigger = "overflow" if forced else "auto"
        yield CompactStarted(trigger)
        result = await self._auto_compact(
            session_id, provider_id=model.provider_id, model_id=model.id, system_prompt=system, tools=tools,
            force=forced, trigger=trigger,
        )
        yield compact_event(result)
        if result.did_compact:
            yield ContextStatusChanged(
                self._planner.status(session_id, system_prompt=system, tools=tools, model=model, settings=settings)
            )

    def _flush_request(
        self, session_id: SessionId, system: str | None, settings: ContextSettings, model: AiModel
    ) -> BuiltRequest:
        """The session as the flush turn sees it, leaving room for its instruction, tool and answer."""
        reserve = FLUSH_MAX_OUTPUT_TOKENS + self._estimator.estimate_text(FLUSH_PROMPT) + FLUSH_TOOL_RESERVE
        return self._planner.preview(
            session_id, system_prompt=system, settings=settings, model=model, reserve_tokens=reserve
        )

    def _require(self, session_id: SessionId) -> Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise NotFound("session", session_id)
        return session

    def _touch(self, session_id: SessionId, preview: str) -> None:
        """Updates message count, preview and updated_at."""
        session = self._sessions.get(session_id)
        if session is not None:
            self._sessions.update(
                replace(
                    session, message_count=self._messages.count(session_id), last_message_preview=preview,
                    updated_at=self._clock.now(),
                )
            )
