"""RequestPlanner: the only code that turns a SessionContext into a request and measures it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from operator import attrgetter

from domain.attachment import Attachment, AttachmentKind
from domain.chat.server_window import short_window_warning
from domain.context.attachment_plan import (
    AttachmentTarget,
    as_sent,
    carded,
    over_limits,
    placeholders_only,
    plan_attachments,
)
from domain.context.builder import BuiltRequest, CompactAwareMessageBuilder
from domain.context.estimator import CALIBRATION_MIN, RequestSize, TokenEstimator, calibration_key, request_size
from domain.context.meter import measure_context
from domain.context.pruner import ToolResultPruner
from domain.context.reasoning_echo import echoed_reasoning, reasoning_tokens
from domain.context.session_context import SessionContext
from domain.events import ContextStatus
from domain.models import AiModel, Message, WindowSource
from domain.provider_models import speaks_responses
from domain.settings import ContextSettings
from domain.thinking_rules_port import ThinkingRules

_ATTACHMENTS = attrgetter("attachments")
MIN_OUTPUT_TOKENS = 256
FIT_OUTPUT_SHARE = 0.25  # a request cut down to fit keeps at most this share of the window for the reply


@dataclass(frozen=True)
class PlannedRequest:
    """A request ready to send, with its estimate (calibrated, and its raw size with the attachments' share) and the
    output tokens to ask for."""

    request: BuiltRequest
    estimate: int
    size: RequestSize
    max_output_tokens: int

    @property
    def raw_estimate(self) -> int:
        """The uncalibrated estimate of the whole request."""
        return self.size.raw


def output_budget(model: AiModel, settings: ContextSettings, estimate: int, thinking_room: int = 0) -> int:
    """Output tokens to request for the reply: the setting, capped by the model's maximum and by the room left in
    the window after `thinking_room`, the thinking the adapter adds above it at the reasoning level
    (ThinkingRules.thinking_room)."""
    wanted = settings.max_output_tokens
    if model.max_output_tokens:
        wanted = min(wanted, model.max_output_tokens)
    window = model.context_window_size
    if window:
        wanted = min(wanted, window - estimate - thinking_room)
    return max(MIN_OUTPUT_TOKENS, wanted)


def input_capacity(model: AiModel | None) -> int | None:
    """The most input tokens the model takes: its window, or its separate input limit when that is smaller."""
    if model is None or not model.context_window_size:
        return None
    window = model.context_window_size
    return min(window, model.input_limit) if model.input_limit else window


def fit_budget(window: int, settings: ContextSettings) -> int:
    """Input tokens allowed when a request must be cut down to fit: the window minus a share kept for output."""
    reserve = max(MIN_OUTPUT_TOKENS, min(settings.max_output_tokens, int(window * FIT_OUTPUT_SHARE)))
    return max(1, window - reserve)


def oversized_message(
    planner: RequestPlanner, ctx: SessionContext, text: str, attachments: tuple[Attachment, ...] = ()
) -> str | None:
    """Why a new message cannot be sent to the context's model even alone (with the system prompt, the tool
    definitions and room to answer), or None when it can. No compaction could make such a message fit."""
    capacity = input_capacity(ctx.model)
    if capacity is None or ctx.model is None:
        return None
    estimator, key = planner.estimator, model_key(ctx)
    caps = ctx.model.capabilities
    target = attachment_target(ctx) if ctx.provider else None
    media = sum(carded(_priced(estimator, ctx, as_sent(a, caps)), capacity,
                       over_limits(as_sent(a, caps), target, estimator)).tokens
                for a in attachments) if target else 0
    text_tokens = estimator.estimate_text(text)
    tokens = estimator.calibrated(RequestSize(text_tokens + media, 0, media), key)  # files by their own ratio
    fixed = estimator.estimate_request(ctx.system_prompt, [], ctx.tools, key)
    room = fit_budget(capacity, ctx.settings) - fixed
    if tokens <= room:
        return None
    fits_chars = max(0, int(len(text) * room / tokens)) if tokens else 0
    scanned = [a.name for a in attachments if a.kind is AttachmentKind.PDF and not a.text_chars]
    if media and scanned:
        return (
            f"This message and its attachments are too large for {ctx.model.id}: about {tokens:,} tokens, and at "
            f"most about {max(room, 0):,} tokens fit in one message with its {capacity:,}-token window. "
            f"{', '.join(scanned)} has no text to read page by page (a scanned document? OCR is not built in), so it "
            "can only go whole. Run it through OCR first, attach fewer pages, or choose a model with a larger window."
        )
    if media:
        return (
            f"This message and its attachments are too large for {ctx.model.id}: about {tokens:,} tokens, and at "
            f"most about {max(room, 0):,} tokens fit in one message with its {capacity:,}-token window. Attach "
            "fewer or smaller files, or choose a model with a larger window."
        )
    return (
        f"This message is too long for {ctx.model.id}: about {tokens:,} tokens ({len(text):,} characters), and at "
        f"most about {max(room, 0):,} tokens (roughly {fits_chars:,} characters) fit in one message with its "
        f"{capacity:,}-token window. Shorten it, split it, or choose a model with a larger window."
    )


def carded_names(planner: RequestPlanner, ctx: SessionContext, attachments: Sequence[Attachment]) -> set[str]:
    """The names of the new attachments that go as their cards (too large for the model, or for the provider)."""
    if ctx.provider is None or ctx.model is None or not attachments:
        return set()
    estimator, caps, capacity = planner.estimator, ctx.model.capabilities, input_capacity(ctx.model)
    target = attachment_target(ctx)
    return {a.name for a in attachments
            if carded(_priced(estimator, ctx, as_sent(a, caps)), capacity,
                      over_limits(as_sent(a, caps), target, estimator)).card}


def _priced(estimator: TokenEstimator, ctx: SessionContext, attachment: Attachment) -> Attachment:
    assert ctx.provider is not None and ctx.model is not None
    tokens = estimator.attachment_tokens(attachment, ctx.provider.type, ctx.model.id, ctx.attachment_counts)
    return replace(attachment, tokens=tokens)


def with_attachments(ctx: SessionContext, messages: list[Message], estimator: TokenEstimator) -> list[Message]:
    """The messages with their attachments set for the context's provider and model (attachment_plan), the
    protected window being the share of the model's input capacity that compaction keeps."""
    if ctx.provider is None or not any(map(_ATTACHMENTS, messages)):  # map: no Python frame per message
        return messages
    capacity = input_capacity(ctx.model)
    protected = int(capacity * ctx.settings.protected_window_ratio) if capacity else None
    return plan_attachments(messages, target=attachment_target(ctx), protected_tokens=protected, estimator=estimator)


def attachment_target(ctx: SessionContext) -> AttachmentTarget:
    """Where the context's attachments go: its provider and model, with the counts known for them."""
    assert ctx.provider is not None
    model = ctx.model
    return AttachmentTarget(ctx.provider.type, model.id if model else None, model.capabilities if model else None,
                            ctx.attachment_counts, input_capacity(model), speaks_responses(ctx.provider))


def model_key(ctx: SessionContext) -> str | None:
    """The calibration key of the context's model (None when no model is chosen)."""
    return calibration_key(ctx.model.provider_id, ctx.model.id) if ctx.model is not None else None


class RequestPlanner:
    """Builds, prunes, fits and measures requests; stored messages are never changed and nothing is read here."""

    def __init__(
        self, builder: CompactAwareMessageBuilder, pruner: ToolResultPruner, estimator: TokenEstimator, *,
        thinking: ThinkingRules,
    ) -> None:
        self._builder = builder
        self._pruner = pruner
        self.estimator = estimator
        self._thinking = thinking

    def forget(self, session_id: str) -> None:
        """Kept for callers that signal a moved boundary: pruning is derived from the messages, nothing to drop."""
        self._pruner.forget(session_id)

    def build(self, ctx: SessionContext) -> BuiltRequest:
        """The summary-bearing system prompt and the messages from the boundary (plus older pinned ones), unpruned."""
        return self._builder.build(ctx.session, ctx.messages, ctx.system_prompt, ctx.pinned)

    def sent(self, ctx: SessionContext) -> tuple[BuiltRequest, list[Message]]:
        """The built request and its messages as pruning would send them now (the same in every process)."""
        built = self.build(ctx)
        return built, with_attachments(ctx, self._pruner.preview(ctx.session.id, built.messages, ctx.settings),
                                       self.estimator)

    def plan(self, ctx: SessionContext, budget: int | None = None) -> PlannedRequest:
        """The request to send; with a budget, only the newest turns that fit."""
        assert ctx.model is not None, "plan() needs a context with a model"
        built = self.build(ctx)
        pruned = self._pruner.prune(ctx.session.id, built.messages, ctx.settings)
        request = BuiltRequest(built.system_prompt, with_attachments(ctx, pruned, self.estimator))
        key = model_key(ctx)
        if budget is not None:
            request = self._builder.fit_to_budget(request, budget, self.estimator, ctx.tools, key)
        raw = self.estimator.estimate_request(request.system_prompt, request.messages, ctx.tools, None)
        size = request_size(raw, request.messages).plus(self.reasoning_sent(ctx, request.messages))
        estimate = self.estimator.calibrated(size, key)
        room = self._thinking.thinking_room(ctx.provider, ctx.model, ctx.settings.reasoning)
        return PlannedRequest(request, estimate, size, output_budget(ctx.model, ctx.settings, estimate, room))

    def reasoning_sent(self, ctx: SessionContext, messages: Sequence[Message]) -> int:
        """Estimated tokens of the stored reasoning a request with these messages sends back to the context's model."""
        provider_id = ctx.provider.id if ctx.provider is not None else None
        model_id = ctx.model.id if ctx.model is not None else None
        every_turn = self._thinking.echoes_every_turn(ctx.provider)
        return reasoning_tokens(self.estimator, echoed_reasoning(messages, provider_id, model_id,
                                                                 every_turn=every_turn))

    def preview(self, ctx: SessionContext, reserve_tokens: int = 0, *, attachments: bool = True) -> BuiltRequest:
        """The next request as it would be sent now, cut to the newest turns that leave `reserve_tokens` of the
        window free (estimated never below the raw estimate); with `attachments=False`, every attachment as its
        placeholder line."""
        built, sent = self.sent(ctx)
        if not attachments:
            sent = placeholders_only(sent, self.estimator)
        request = BuiltRequest(built.system_prompt, sent)
        window = ctx.window
        if window and reserve_tokens:
            key = model_key(ctx)
            if self.estimator.ratio(key) < 1.0:  # stay on the safe side: never scale this estimate down
                key = None
            request = self._builder.fit_to_budget(request, max(1, window - reserve_tokens), self.estimator, (), key)
        return request

    def status(self, ctx: SessionContext) -> ContextStatus:
        """What the next request would cost now (pruning previewed), broken down, against the model's window."""
        _, sent = self.sent(ctx)
        model = ctx.model
        capacity = input_capacity(model)
        measured = measure_context(
            self.estimator, system_prompt=ctx.system_prompt, summary=ctx.summary, messages=sent, tools=ctx.tools,
            model_key=model_key(ctx), reasoning=self.reasoning_sent(ctx, sent), unloaded=ctx.unloaded_tokens,
            exact_up_to=int(capacity / CALIBRATION_MIN) + 1 if capacity else None,  # past the window calibrated
        )
        threshold = int(capacity * ctx.settings.compact_threshold_ratio) if capacity else None
        return ContextStatus(
            used=measured.used,
            window=ctx.window,
            breakdown=measured.breakdown,
            window_is_guess=bool(model and model.window_is_guess),
            provider_id=ctx.provider.id if ctx.provider else None,
            model_id=model.id if model else None,
            input_limit=model.input_limit if model else None,
            window_source=model.window_source.value if model and model.context_window_size else None,
            threshold=threshold,
            warnings=(_warnings(ctx, measured.used, capacity, self.estimator)
                      + _tool_warnings(ctx, measured.breakdown.tools, capacity)),
        )


def _tool_warnings(ctx: SessionContext, tools: int, capacity: int | None) -> tuple[str, ...]:
    """A warning when the tools' definitions take more than their share of the window (default 10%)."""
    share = ctx.settings.tool_definitions_warn_ratio
    if not capacity or tools <= capacity * share:
        return ()
    return (f"Tool definitions take {tools:,} tokens, {tools / capacity:.0%} of the window (over {share:.0%}); "
            "turn MCP servers off for this conversation to free it.",)


def _warnings(
    ctx: SessionContext, used: int, capacity: int | None, estimator: TokenEstimator
) -> tuple[str, ...]:
    model, out = ctx.model, []
    if model is None:
        out.append("No model is chosen for this conversation yet.")
    elif not model.context_window_size:
        out.append(f"The context window of {model.id} is unknown; set it to have the conversation measured against it.")
    elif model.window_is_guess:
        out.append(
            f"The context window of {model.id} is a guess ({model.context_window_size:,} tokens); set the real one."
        )
    if (model is not None and model.window_source is WindowSource.SERVER and model.trained_window
            and model.context_window_size and model.context_window_size < model.trained_window):
        rules = estimator.rules
        hint = rules.context_length_hint(model.trained_window) if rules is not None else ""
        out.append(short_window_warning(model.id, model.context_window_size, model.trained_window, hint))
    if capacity and used > capacity:
        out.append(f"The conversation ({used:,} tokens) is larger than what {model.id if model else 'the model'} "
                   f"takes ({capacity:,}); the next message compacts it first.")
    return tuple(out)
