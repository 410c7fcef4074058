"""Sends one user message and runs the turn: stream, tool rounds, usage, then context upkeep and the title."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from dataclasses import replace

from domain.attachment import Attachment
from domain.chat.attachment_check import check_attachments, missing_files
from domain.chat.draft import ReplyDraft
from domain.chat.provider_numbers import ProviderNumbers, cut_sign, cut_warning
from domain.chat.records import IdFactory, MessageFactory, new_uuid
from domain.chat.request import carded_names, oversized_message
from domain.chat.round_save import branch_point, save_round
from domain.chat.round_sender import RoundAttempt, RoundSender
from domain.chat.server_window import apply_server_window
from domain.chat.stream import add_usage
from domain.chat.tool_runner import NOT_RUN_OUTPUT, ToolRunner
from domain.chat.turn import TurnProgress, chat_error, end_reason
from domain.chat.turn_gate import TurnGate, one_at_a_time
from domain.chat.turn_store import StoredRound, TurnStore
from domain.chat.upkeep import ContextUpkeep
from domain.context.context_loader import SessionContextLoader
from domain.context.session_context import SessionContext
from domain.context.truncator import ToolResultTruncator
from domain.errors import InvalidInput, PalimpsestError
from domain.events import (
    ChatEvent,
    Notice,
    ResponseComplete,
    SourcesCited,
    TextDelta,
    ThinkingDelta,
    TitleGenerated,
    ToolRoundLimitReached,
)
from domain.models import AgentId, Message, MessageId, MessageType, ModelId, ProviderId, SessionId, Usage
from domain.ports import Clock, ModelRepository
from domain.provider_ports import AttachmentForms, ToolContext, ToolExecutor
from domain.retirement import RetirementNotices, explained
from domain.services.adapters import ProviderAdapters
from domain.usecases.discover_model import DiscoverModelUseCase
from domain.usecases.generate_title import GenerateTitleUseCase
from domain.web_support import search_tool_names, web_search_unavailable


class SendMessageUseCase:
    """One chat turn as an async generator of ChatEvents; the user's message is stored before anything else.

    The session's request is loaded once (SessionContextLoader) and kept current in memory as the turn stores its
    reply, tool calls and results, so every round, the status and the compaction check measure the same thing."""

    def __init__(
        self,
        *,
        contexts: SessionContextLoader,
        turns: TurnStore,
        adapters: ProviderAdapters,
        tools: ToolExecutor,
        models: ModelRepository,
        upkeep: ContextUpkeep,
        title: GenerateTitleUseCase,
        clock: Clock,
        new_id: IdFactory = new_uuid,
        discover: DiscoverModelUseCase | None = None,
        numbers: ProviderNumbers | None = None,
        forms: AttachmentForms | None = None,
        gate: TurnGate | None = None,
    ) -> None:
        """`discover`: looks a model only guesses describe up in its provider's list before its first request.
        `numbers`: the provider's own counts of attachments, and a window guessed only on evidence. `forms`: says
        which attachments the provider is sent converted (a notice each). `gate`: one turn at a time per
        conversation, across processes (a lease in the store)."""
        self._contexts, self._turns, self._adapters, self._tools = contexts, turns, adapters, tools
        self._discover, self._forms = discover, forms
        self._upkeep, self._title, self._clock, self._new_id = upkeep, title, clock, new_id
        self._sender = RoundSender(upkeep.planner, models, upkeep.auto_compact)
        self._models, self._numbers, self._gate = models, numbers, gate
        self._retiring = RetirementNotices()  # a model its vendor retires: said once per conversation

    def __call__(
        self,
        session_id: SessionId,
        text: str,
        *,
        provider_id: ProviderId | None = None,
        model_id: ModelId | None = None,
        agent_id: AgentId | None = None,
        retry: bool = False,
        edit: MessageId | None = None,
        regenerate: MessageId | None = None,
        attachments: Sequence[Attachment] = (),
        wait: bool = False,
    ) -> AsyncGenerator[ChatEvent, None]:
        """Runs the turn (see _turn) holding the conversation: one turn at a time, across processes. While another
        turn runs in it the message is refused (ConversationBusy) or, with `wait`, queued behind it with a Notice
        (and another, with the seconds waited, when it goes). The turn's own stream is returned (closing it closes
        the turn): no generator of this method's passes every event on."""
        turn = self._turn(session_id, text, provider_id=provider_id, model_id=model_id, agent_id=agent_id,
                          retry=retry, edit=edit, regenerate=regenerate, attachments=attachments)
        return turn if self._gate is None else one_at_a_time(self._gate, session_id, turn, wait=wait)

    async def _turn(
        self,
        session_id: SessionId,
        text: str,
        *,
        provider_id: ProviderId | None,
        model_id: ModelId | None,
        agent_id: AgentId | None,
        retry: bool,
        edit: MessageId | None,
        regenerate: MessageId | None,
        attachments: Sequence[Attachment],
    ) -> AsyncGenerator[ChatEvent, None]:
        """Runs the turn; known failures end it with ChatError, cancellation keeps the partial reply and re-raises.

        With `retry=True` (regenerate) the last user message on the active path is answered again and `text` is
        ignored: the answer it had stays stored as another branch, nothing new is stored for the user. With `edit`
        (a user message's id) `text` is sent as a new version of that message, a sibling branch beside it. Either
        way the conversation moves to the new branch, with the summary that belongs to it. With `regenerate` (a
        reply's id) the user message that reply answered is answered again."""
        retry = retry or regenerate is not None
        choice = {"provider_id": provider_id, "model_id": model_id, "agent_id": agent_id}
        try:
            ctx = self._contexts.load(session_id, strict=False, **choice)
            if retry or edit is not None:
                if not (edit is None or text.strip()):
                    raise InvalidInput("The message is empty; type something to send.")
                ctx, asked = self._branch(ctx, edit, choice, regenerate)
                text = asked if retry else text
        except PalimpsestError as err:
            yield chat_error(err)
            return
        if self._discover is not None and ctx.provider is not None and ctx.model is not None:
            known = await self._discover(ctx.provider, ctx.model)
            if known is not None:
                ctx = ctx.with_model(known)
        files = () if retry else tuple(attachments)
        if not text.strip() and not files:
            yield chat_error(InvalidInput("The message is empty; type something to send."))
            return
        try:
            notices = check_attachments(ctx, files, self._upkeep.planner.estimator.rules, self._forms,
                                        carded_names(self._upkeep.planner, ctx, files))
            notices += missing_files(ctx, self._forms)
        except PalimpsestError as err:  # refused before anything is stored or sent: the text stays with the user
            yield chat_error(err)
            return
        too_big = None if retry else oversized_message(self._upkeep.planner, ctx, text, files)
        if too_big is not None:  # refused before anything is stored or sent: the text stays with the user
            yield chat_error(InvalidInput(too_big))
            return
        first_exchange = _needs_title(ctx)
        turn = TurnProgress(MessageFactory(session_id, self._clock, self._new_id))
        user = None if retry else turn.factory.user(text)
        if user is not None and files:
            user = replace(user, attachments=files)
        try:
            ctx, switched = self._start(ctx, user, choice)
        except PalimpsestError as err:
            yield chat_error(err)
            return
        for notice in notices:
            yield Notice(notice)
        try:
            async with aclosing(self._run(turn, ctx, text, first_exchange, switched)) as events:
                async for event in events:  # closing `events` closes the provider's stream at once
                    yield event
        except PalimpsestError as err:
            turn.keep_partial(self._turns, end_reason(err))
            yield chat_error(explained(err, ctx.model, ctx.provider.name if ctx.provider else "",
                                       self._clock.now().date()))
        except BaseException as err:  # cancelled, closed, or a bug: keep what arrived, then let it propagate
            turn.keep_partial(self._turns, end_reason(err))
            raise

    def _branch(
        self, ctx: SessionContext, edit: MessageId | None, choice: dict[str, str | None],
        regenerate: MessageId | None = None,
    ) -> tuple[SessionContext, str]:
        """Moves the conversation to the branch a regenerate or an edit starts from (the last user message; the
        edited message's parent) and loads it again; returns it with the text of the message answered again."""
        session_id = ctx.session.id
        leaf, asked = branch_point(self._turns, ctx, edit, regenerate)
        self._turns.switch_path(session_id, leaf)
        self._upkeep.planner.forget(session_id)
        return self._contexts.load(session_id, strict=False, **choice), asked

    def _start(
        self, ctx: SessionContext, user: Message | None, choice: dict[str, str | None]
    ) -> tuple[SessionContext, bool]:
        """Stores the user's message (none on a regenerate) with the turn's choice of agent, provider and model, in
        one transaction. When no model can be chosen the message is still kept (Retry sends it once that is fixed)
        and the error says why."""
        provider, model = ctx.provider, ctx.model
        if provider is None or model is None:
            if user is not None:
                self._turns.add(user)
            self._contexts.load(ctx.session.id, strict=True, **choice)  # raises the precise reason
            raise InvalidInput("No model could be chosen for this conversation.")
        stored, session, switched = self._turns.begin(ctx.session, user, ctx.agent, provider, model)
        ctx = ctx.with_session(session)
        ctx = self._contexts.with_document_tools(ctx.with_messages([stored])) if stored is not None else ctx
        return ctx, switched

    async def _run(
        self, turn: TurnProgress, ctx: SessionContext, text: str, first_exchange: bool, switched: bool
    ) -> AsyncGenerator[ChatEvent, None]:
        session_id = turn.factory.session_id
        assert ctx.provider is not None
        proactive_trigger = "model_switch" if switched else "overflow"
        provider = ctx.provider
        adapter = self._adapters.for_provider(provider)
        ctx, short = await apply_server_window(adapter, self._models, ctx, self._upkeep.planner.estimator.rules)
        if short is not None:
            yield Notice(short, warning=True)
        unavailable = web_search_unavailable(provider, adapter, search_tool_names([t.name for t in ctx.tools]),
                                             ctx.model) if ctx.settings.web_search else None
        if unavailable is not None:
            yield Notice(unavailable, warning=True)
        retiring = self._retiring.notice(session_id, ctx.model, provider.name, self._clock.now().date())
        if retiring is not None:
            yield retiring
        if self._numbers is not None:
            ctx = await self._numbers.counted(adapter, self._upkeep.planner, ctx)
        names = [t.name for t in ctx.tools]  # web search on: its MCP search tools run even where turned off here
        granted = tuple(search_tool_names(names)) if ctx.settings.web_search else ()
        runner = ToolRunner(
            self._turns.messages, self._tools, turn.factory, ToolResultTruncator(ctx.settings),
            ToolContext(session_id, ctx.agent.id, granted=granted), names,
        )
        rounds = max(1, ctx.settings.max_tool_rounds)
        total = Usage()
        attempt = RoundAttempt(ctx)
        for round_no in range(1, rounds + 1):
            attempt.ctx = ctx
            turn.attempt = attempt
            turn.draft = draft = ReplyDraft(
                self._turns, turn.factory, self._clock, provider_id=provider.id, model_id=attempt.model.id
            )
            async with aclosing(self._sender.send(adapter, attempt, proactive_trigger=proactive_trigger)) as sent:
                async for event in sent:
                    yield event
                    if isinstance(event, TextDelta | ThinkingDelta):
                        draft.grew(attempt.state)  # nothing shown is lost: the reply is stored as it streams
            reported, planned = attempt.state.usage.input_tokens, attempt.planned
            cut = planned is not None and cut_sign(reported, planned) is not None
            stored = self._save_round(turn, attempt, draft, calibrate=not cut)  # a cut request teaches no ratio
            ctx = attempt.ctx.with_messages(stored.messages)
            if stored.reply.web is not None:
                yield SourcesCited(stored.reply.id, stored.reply.web)
            guessed = self._numbers.judge(attempt.model, reported, planned) if self._numbers is not None else None
            if guessed is not None:  # a window guessed on two requests' evidence; the user is told, once
                model = attempt.model
                ctx = ctx.with_model(self._models.resolve(model.provider_id, model.id))
                yield Notice(cut_warning(model, guessed), warning=True, guessed_window_of=model.id)
            total = add_usage(total, attempt.state.usage)
            calls = attempt.state.calls
            if not calls:
                break
            if round_no == rounds:
                for call in calls:
                    runner.store(call.id, call.name, NOT_RUN_OUTPUT.format(rounds=rounds), is_error=True)
                    turn.pending_calls.pop(call.id, None)
                ctx = ctx.with_messages(runner.take_stored())
                yield ToolRoundLimitReached(rounds)
                break
            for call in calls:
                async for tool_event in runner.run(call):
                    yield tool_event
                turn.pending_calls.pop(call.id, None)
            ctx = ctx.with_messages(runner.take_stored())
        yield ResponseComplete(stored.reply.id, total)
        reload = lambda: self._contexts.load(  # noqa: E731 - after the memory flush changed the memory section
            session_id, provider_id=attempt.model.provider_id, model_id=attempt.model.id, agent_id=ctx.agent.id
        )
        async for upkeep_event in self._upkeep.after_turn(ctx, attempt, reload):
            yield upkeep_event
        if first_exchange:
            title = await self._title(
                session_id, provider_id=attempt.model.provider_id, model_id=attempt.model.id, user_text=text,
                reply_text=stored.reply.content,
            )
            if title:
                yield TitleGenerated(title)

    def _save_round(
        self, turn: TurnProgress, attempt: RoundAttempt, draft: ReplyDraft, *, calibrate: bool = True
    ) -> StoredRound:
        """Stores the reply (completing its draft), its tool calls and the usage in one transaction, with the
        calibration learned from the round."""
        return save_round(self._turns, self._upkeep.planner.estimator, turn, attempt, draft, calibrate=calibrate)


def _needs_title(ctx: SessionContext) -> bool:
    """True until the session has a complete reply (a compacted session has had one)."""
    if ctx.boundary is not None:
        return False
    return not any(m.type is MessageType.AI_RESPONSE and not m.incomplete for m in ctx.messages)
