"""Auto-compaction: summarizes the older part of a session once it nears the model's window."""

from __future__ import annotations

from dataclasses import replace

from domain.chat.compaction import CompactResult
from domain.chat.request import RequestPlanner, input_capacity
from domain.context.compaction_model import choose_compaction_model
from domain.context.cut_point import find_cut_index
from domain.context.session_context import SessionContext
from domain.context.summary_writer import SummaryFailed, SummaryTarget, SummaryWriter
from domain.context.transcript import render_blocks
from domain.models import AiModel, CompactionRecord, ModelId, ProviderId, Session, SessionId
from domain.ports import Clock, ModelRepository, SessionRepository, UnitOfWork
from domain.provider_ports import Summarizer


class AutoCompactUseCase:
    """Summarizes the messages before a cut point into the session's summary when the context passes the threshold.

    It measures the context exactly as the gauge and the next send do (RequestPlanner.status of the same
    SessionContext). The staleness check and the write share one transaction: a compaction whose session changed
    meanwhile (another compaction, a reset, an edited summary) is dropped.
    Loop guard: when a compaction frees under `min_free_ratio` of the window or leaves the context above the
    threshold, automatic attempts are skipped until the session has new messages (force ignores the guard)."""

    def __init__(
        self,
        *,
        store: UnitOfWork,
        sessions: SessionRepository,
        models: ModelRepository,
        summarizer: Summarizer,
        planner: RequestPlanner,
        clock: Clock,
    ) -> None:
        self._store = store
        self._sessions = sessions
        self._models = models
        self._summarizer = summarizer
        self._planner = planner
        self._clock = clock
        self._guard: dict[SessionId, int] = {}

    def due(self, ctx: SessionContext, used: int) -> bool:
        """Whether an automatic compaction would run for a context measured at `used` tokens (past the threshold
        of a known window, and not held back by the loop guard)."""
        window = input_capacity(ctx.model)
        if not window or used <= int(window * ctx.settings.compact_threshold_ratio):
            return False
        newest = ctx.messages[-1].seq if ctx.messages else 0
        return self._guard.get(ctx.session.id) != newest

    async def __call__(
        self,
        ctx: SessionContext,
        *,
        force: bool = False,
        instructions: str | None = None,
        trigger: str = "auto",
    ) -> CompactResult:
        """Compacts when needed (or always when `force`); never raises for a failing summarizer (fallback=True)."""
        session, settings, model = ctx.session, ctx.settings, ctx.model
        window = input_capacity(model)
        if model is None or not window:
            return CompactResult(False, reason="unknown_window")
        before = self._planner.status(ctx).used
        threshold = int(window * settings.compact_threshold_ratio)
        if not force and before <= threshold:
            return CompactResult(False, tokens_before=before, reason="below_threshold")
        newest = ctx.messages[-1].seq if ctx.messages else 0
        if not force and self._guard.get(session.id) == newest:
            return CompactResult(False, tokens_before=before, reason="loop_guard")
        built, sent = self._planner.sent(ctx)
        keep = int(window * settings.protected_window_ratio)
        estimator = self._planner.estimator
        # a newest turn of up to twice the kept share is kept whole rather than cut down to its last reply
        cut = find_cut_index(sent, keep, estimator, max_keep_tokens=2 * keep)
        if cut is None and force:  # asked for explicitly: keep only the newest turn
            cut = find_cut_index(sent, 1, estimator)
        if cut is None:
            return CompactResult(False, tokens_before=before, reason="nothing_to_compact")
        boundary_seq = built.messages[cut].seq
        old_boundary = ctx.boundary
        older = [m for m in built.messages[:cut] if old_boundary is None or m.seq >= old_boundary]
        blocks = render_blocks(older)
        if not blocks or (old_boundary is not None and boundary_seq <= old_boundary):
            return CompactResult(False, tokens_before=before, reason="nothing_to_compact")
        target = self._target(model, window, settings.compaction_model_id, settings.summary_max_tokens)
        try:
            summary = await SummaryWriter(self._summarizer).write(target, blocks, ctx.summary, instructions)
        except SummaryFailed as failed:
            return CompactResult(False, fallback=True, tokens_before=before, reason=failed.reason)
        after_ctx = ctx.with_session(replace(session, compacted_summary=summary, compact_boundary=boundary_seq))
        after = self._planner.status(after_ctx).used
        summary_tokens = estimator.estimate_text(summary)
        if after >= before:
            self._guard[session.id] = newest
            return CompactResult(False, tokens_before=before, tokens_after=after, summary_tokens=summary_tokens,
                                 reason="no_gain")
        through = max((m for m in ctx.messages if m.seq < boundary_seq), key=lambda m: m.seq, default=None)
        record = CompactionRecord(  # the summary belongs to every path through its last summarized message
            session_id=session.id, created_at=self._clock.now(), boundary=boundary_seq, tokens_before=before,
            tokens_after=after, summary_tokens=summary_tokens, trigger=trigger, summary=summary,
            through_id=through.id if through is not None else None,
        )
        with self._store.atomic():  # the staleness check and the write in one transaction
            current = self._sessions.get(session.id)
            if current is None or _state(current) != _state(session):
                return CompactResult(False, tokens_before=before, reason="stale")
            stored = self._sessions.apply_compaction(session.id, summary=summary, boundary=boundary_seq,
                                                     record=record)
        self._planner.forget(session.id)
        reason = ""
        if before - after < settings.min_free_ratio * window or after > threshold:
            self._guard[session.id] = newest
            reason = "loop_guard"
        else:
            self._guard.pop(session.id, None)
        return CompactResult(True, tokens_before=before, tokens_after=after, summary_tokens=summary_tokens,
                             reason=reason, session=stored)

    def _target(self, model: AiModel, window: int, override: str | None, max_tokens: int) -> SummaryTarget:
        provider_id: ProviderId = model.provider_id
        rules = self._planner.estimator.rules
        families = rules.summary_families() if rules is not None else ()
        chosen = choose_compaction_model(model, self._models.list(provider_id), override, families,
                                         today=self._clock.now().date())
        chosen_id: ModelId = chosen.id
        resolved = self._models.resolve(provider_id, chosen_id) if chosen_id != model.id else model
        summarizer_window = resolved.context_window_size or window
        output = min(max_tokens, resolved.max_output_tokens or max_tokens)
        return SummaryTarget(provider_id, chosen_id, summarizer_window, output)


def _state(session: Session) -> tuple[str | None, int | None]:
    """What a concurrent compaction, reset or summary edit would change."""
    return session.compacted_summary, session.compact_boundary
