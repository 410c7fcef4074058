"""The provider's numbers in a turn: its own counts of the attachments a request carries (asked once per attachment
and model family, kept), and a window guessed from reported prompt sizes only on evidence: two requests in a row
read far below their estimate at about the same size, with nothing in either priced by an uncertain rule."""

from __future__ import annotations

from dataclasses import dataclass

from domain.attachment import AttachmentKind
from domain.chat.request import PlannedRequest, RequestPlanner
from domain.context.estimator import calibration_key
from domain.context.session_context import SessionContext
from domain.models import AiModel, WindowSource
from domain.ports import ModelRepository
from domain.provider_ports import ModelApiAdapter
from domain.provider_rules import AttachmentCounts, CutEvidence, CutSign

MAX_COUNTS_PER_TURN = 8  # attachments counted before one request (the rest keep their rule's price until later turns)
CUT_RATIO = 0.6  # reported prompt tokens below this share of the estimate: the server may have cut the request
CUT_MIN_ESTIMATE = 8_000  # only requests this large count (small ones vary too much to tell)
PLATEAU = 0.1  # two cut requests read within this share of each other: the server stops at one size, its window


@dataclass(frozen=True)
class GuessedWindow:
    """A window guessed from two cut requests: the size the server read, and what was sent."""

    tokens: int
    estimate: int


def cut_sign(reported: int, planned: PlannedRequest) -> CutSign | None:
    """A sign of a silent cut in one response: the estimate is comparable (no attachment priced by a rule, whose
    figure can be far off the provider's) and large, and the provider read far less than it."""
    if planned.size.ruled or planned.estimate <= CUT_MIN_ESTIMATE:
        return None
    if 0 < reported < CUT_RATIO * planned.estimate:
        return CutSign(reported, planned.estimate)
    return None


def confirmed(previous: CutSign | None, sign: CutSign) -> bool:
    """Whether a second sign confirms the first: the server read about the same amount both times."""
    if previous is None:
        return False
    return abs(sign.reported - previous.reported) <= PLATEAU * max(sign.reported, previous.reported)


def cut_warning(model: AiModel, guessed: GuessedWindow) -> str:
    """What the user is told about a window guessed from the server's reported usage, and how to undo it."""
    return (f"{model.id} read only about {guessed.tokens:,} tokens of requests of about {guessed.estimate:,}, twice "
            "in a row: the server seems to cut the conversation without saying so. Palimpsest now treats "
            f"{guessed.tokens:,} tokens as this model's window (guessed from the server's reported usage) and "
            "compacts to fit. If the server can take more, raise the context it loads the model with, then go back "
            "to the automatic window.")


class ProviderNumbers:
    """Counts attachments through the provider and judges reported usage against the estimate, across processes."""

    def __init__(self, counts: AttachmentCounts, evidence: CutEvidence, models: ModelRepository) -> None:
        self._counts, self._evidence, self._models = counts, evidence, models

    async def counted(self, adapter: ModelApiAdapter, planner: RequestPlanner, ctx: SessionContext) -> SessionContext:
        """The context with the provider's counts of the attachments its next request carries natively (counted
        now where none is kept for this model's family)."""
        rules = planner.estimator.rules
        if rules is None or ctx.provider is None or ctx.model is None:
            return ctx
        key = rules.count_key(ctx.provider.type, ctx.model.id)
        uncounted = any(a.kind is not AttachmentKind.TEXT and (a.sha256, key) not in ctx.attachment_counts
                        for m in (*ctx.messages, *ctx.pinned) for a in m.attachments)
        if not uncounted:  # nothing left to count: the request is not planned a second time for it
            return ctx
        _, sent = planner.sent(ctx)
        todo = {a.sha256: a for m in sent for a in m.attachments
                if not (a.omitted or a.as_text or a.card or a.exact or a.kind is AttachmentKind.TEXT)
                and (a.sha256, key) not in ctx.attachment_counts}
        found: dict[tuple[str, str], int] = {}
        for attachment in list(todo.values())[:MAX_COUNTS_PER_TURN]:
            tokens = await adapter.count_attachment_tokens(ctx.model.id, attachment)
            if tokens:
                self._counts.put(attachment.sha256, key, tokens)
                found[(attachment.sha256, key)] = tokens
        return ctx.with_counts(found)

    def judge(self, model: AiModel, reported: int, planned: PlannedRequest | None) -> GuessedWindow | None:
        """Weighs one response's reported prompt tokens: a first sign of a cut is kept (nothing changes), a second
        that confirms it sets the window as guessed from usage (never over a window the user set), a request read
        whole forgets the sign. Returns the guessed window when one was set."""
        if planned is None or reported <= 0:
            return None
        key = calibration_key(model.provider_id, model.id)
        sign = cut_sign(reported, planned)
        previous = self._evidence.last(key)
        if sign is None:
            if previous is not None:
                self._evidence.put(key, None)
            return None
        if not confirmed(previous, sign):
            self._evidence.put(key, sign)
            return None
        assert previous is not None
        self._evidence.put(key, None)
        guessed = GuessedWindow(max(sign.reported, previous.reported), max(sign.estimate, previous.estimate))
        if model.user_window:
            return None
        self._models.record_limit(model.provider_id, model.id, guessed.tokens, source=WindowSource.GUESSED)
        return guessed
