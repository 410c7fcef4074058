"""Auto-compaction: summarizes the older part of a session once it nears the model's window."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from domain.context.builder import BuiltRequest, CompactAwareMessageBuilder
from domain.context.compaction_model import choose_compaction_model
from domain.context.cut_point import find_cut_index
from domain.context.estimator import TokenEstimator, calibration_key
from domain.context.pruner import ToolResultPruner
from domain.context.settings_source import SettingsProvider
from domain.context.summary_writer import SummaryFailed, SummaryTarget, SummaryWriter
from domain.context.transcript import render_blocks
from domain.errors import NotFound
from domain.models import CompactionRecord, Message, ModelId, ProviderId, Session, SessionId, ToolDefinition
from domain.ports import Clock, MessageRepository, ModelRepository, SessionRepository, Summarizer
from domain.settings import ContextSettings


@dataclass(frozen=True)
class CompactResult:
    """What a compaction attempt did; `reason` is a short tag when nothing was compacted or it fell back.

    Reasons: "" (compacted), "loop_guard" (compacted, but freed too little: no automatic retry until new messages),
    "unknown_window", "below_threshold", "nothing_to_compact", "no_gain" (the summary was not smaller), "stale"
    (the session's summary changed meanwhile), and with fallback=True "summarizer_blank",
    "summarizer_failed: <error>" or "summarizer_overflow"."""

    did_compact: bool
    fallback: bool = False
    tokens_before: int = 0
    tokens_after: int = 0
    summary_tokens: int = 0
    reason: str = ""


class AutoCompactUseCase:
    """Summarizes messages before a cut point into the session's summary when the context passes the threshold.

    Settings come from `settings_provider(session)` (use AgentContextSettings: app settings + agent overrides).
    The estimate is of the request as it would be sent: summary-bearing system prompt, messages from the boundary
    (pruned when a pruner is given), tool definitions, scaled by the model's calibration.
    Loop guard: when a compaction frees under `min_free_ratio` of the window or leaves the context above the
    threshold, automatic attempts are skipped until the session has new messages (force ignores the guard)."""

    def __init__(
        self,
        sessions: SessionRepository,
        messages: MessageRepository,
        models: ModelRepository,
        summarizer: Summarizer,
        estimator: TokenEstimator,
        clock: Clock,
        settings_provider: SettingsProvider,
        pruner: ToolResultPruner | None = None,
    ) -> None:
        self._sessions = sessions
        self._messages = messages
        self._models = models
        self._summarizer = summarizer
        self._estimator = estimator
        self._clock = clock
        self._settings_provider = settings_provider
        self._pruner = pruner
        self._builder = CompactAwareMessageBuilder()
        self._guard: dict[SessionId, int] = {}

    async def __call__(
        self,
        session_id: SessionId,
        *,
        provider_id: ProviderId,
        model_id: ModelId,
        system_prompt: str | None = None,
        tools: Sequence[ToolDefinition] = (),
        force: bool = False,
        instructions: str | None = None,
        trigger: str = "auto",
    ) -> CompactResult:
        """Compacts when needed (or always when `force`); never raises for a failing summarizer (fallback=True)."""
        session = self._require(session_id)
        settings = self._settings_provider(session)
        model = self._models.resolve(provider_id, model_id)
        window = model.context_window_size
        if not window or window <= 0:
            return CompactResult(False, reason="unknown_window")
        key = calibration_key(provider_id, model_id)
        built, sent = self._request(session, system_prompt, settings)
        before = self._estimator.estimate_request(built.system_prompt, sent, tools, key)
        threshold = int(window * settings.compact_threshold_ratio)
        if not force and before <= threshold:
            return CompactResult(False, tokens_before=before, reason="below_threshold")
        count = self._messages.count(session_id)
        if not force and self._guard.get(session_id) == count:
            return CompactResult(False, tokens_before=before, reason="loop_guard")
        keep = int(window * settings.protected_window_ratio)
        # a newest turn of up to twice the kept share is kept whole rather than cut down to its last reply
        cut = find_cut_index(sent, keep, self._estimator, max_keep_tokens=2 * keep)
        if cut is None and force:  # asked for explicitly: keep only the newest turn
            cut = find_cut_index(sent, 1, self._estimator)
        if cut is None:
            return CompactResult(False, tokens_before=before, reason="nothing_to_compact")
        boundary_seq = built.messages[cut].seq
        old_boundary = session.compact_boundary if session.compacted_summary else None
        older = [m for m in built.messages[:cut] if old_boundary is None or m.seq >= old_boundary]
        blocks = render_blocks(older)
        if not blocks or (old_boundary is not None and boundary_seq <= old_boundary):
            return CompactResult(False, tokens_before=before, reason="nothing_to_compact")
        target = self._target(model.provider_id, model.id, window, settings.compaction_model_id,
                              settings.summary_max_tokens)
        writer = SummaryWriter(self._summarizer)
        try:
            summary = await writer.write(target, blocks, session.compacted_summary, instructions)
        except SummaryFailed as failed:
            return CompactResult(False, fallback=True, tokens_before=before, reason=failed.reason)
        current = self._require(session_id)
        if _state(current) != _state(session):
            return CompactResult(False, tokens_before=before, reason="stale")
        after_session = replace(current, compacted_summary=summary, compact_boundary=boundary_seq)
        after_built, after_sent = self._request(after_session, system_prompt, settings)
        after = self._estimator.estimate_request(after_built.system_prompt, after_sent, tools, key)
        summary_tokens = self._estimator.estimate_text(summary)
        if after >= before:
            self._guard[session_id] = count
            return CompactResult(False, tokens_before=before, tokens_after=after, summary_tokens=summary_tokens,
                                 reason="no_gain")
        record = CompactionRecord(
            session_id=session_id,
            created_at=self._clock.now(),
            boundary=boundary_seq,
            tokens_before=before,
            tokens_after=after,
            summary_tokens=summary_tokens,
            trigger=trigger,
        )
        self._sessions.apply_compaction(session_id, summary=summary, boundary=boundary_seq, record=record)
        if self._pruner is not None:
            self._pruner.forget(session_id)
        reason = ""
        if before - after < settings.min_free_ratio * window or after > threshold:
            self._guard[session_id] = count
            reason = "loop_guard"
        else:
            self._guard.pop(session_id, None)
        return CompactResult(True, tokens_before=before, tokens_after=after, summary_tokens=summary_tokens,
                             reason=reason)

    def _require(self, session_id: SessionId) -> Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise NotFound("session", session_id)
        return session

    def _request(
        self, session: Session, system_prompt: str | None, settings: ContextSettings
    ) -> tuple[BuiltRequest, list[Message]]:
        boundary = session.compact_boundary if session.compacted_summary else None
        stored = self._messages.since(session.id, boundary or 0)
        built = self._builder.build(session, stored, system_prompt, self._messages.pinned(session.id))
        sent = self._pruner.preview(session.id, built.messages, settings) if self._pruner else built.messages
        return built, sent

    def _target(
        self, provider_id: ProviderId, model_id: ModelId, window: int, override: str | None, max_tokens: int
    ) -> SummaryTarget:
        session_model = self._models.resolve(provider_id, model_id)
        chosen = choose_compaction_model(session_model, self._models.list(provider_id), override)
        resolved = self._models.resolve(provider_id, chosen.id) if chosen.id != model_id else session_model
        summarizer_window = resolved.context_window_size or window
        output = min(max_tokens, resolved.max_output_tokens or max_tokens)
        return SummaryTarget(provider_id, chosen.id, summarizer_window, output)


def _state(session: Session) -> tuple[str | None, int | None]:
    """What a concurrent compaction, reset or summary edit would change."""
    return session.compacted_summary, session.compact_boundary
