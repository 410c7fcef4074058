"""What a turn writes at its edges: the branch an edit, a retry or a regenerate starts from, and each finished round
(the reply, its tool calls, the usage and the calibration learned from it) in one transaction."""

from __future__ import annotations

from domain.chat.draft import ReplyDraft
from domain.chat.round_sender import RoundAttempt
from domain.chat.turn import TurnProgress
from domain.chat.turn_store import StoredRound, TurnStore
from domain.context.estimator import TokenEstimator, calibration_key
from domain.context.session_context import SessionContext
from domain.errors import InvalidInput, NotFound
from domain.models import Message, MessageId, MessageType


def branch_point(turns: TurnStore, ctx: SessionContext, edit: MessageId | None, regenerate: MessageId | None
                 ) -> tuple[MessageId | None, str]:
    """The message the new branch follows (the last user message; the edited message's parent) and the text of the
    message answered again."""
    session_id = ctx.session.id
    leaf: MessageId | None
    if regenerate is not None:
        last = turns.asked_before(session_id, regenerate.strip())
        if last is None:
            raise InvalidInput("No message of yours comes before that reply; there is nothing to answer again.")
        leaf, asked = last.id, last.content
    elif edit is None:
        last = _last_user(ctx.messages) or turns.last_user_on_path(session_id)
        if last is None:
            raise InvalidInput("There is no message to retry in this conversation.")
        leaf, asked = last.id, last.content
    else:
        edited = turns.messages.get(edit.strip())
        if edited is None or edited.session_id != session_id:
            raise NotFound("message", edit)
        if edited.type is not MessageType.USER:
            raise InvalidInput(f"Message {edited.id} is not one of your messages; only those can be edited "
                               "(regenerate an answer instead).")
        leaf, asked = edited.parent_id, edited.content
    return leaf, asked


def save_round(turns: TurnStore, estimator: TokenEstimator, turn: TurnProgress, attempt: RoundAttempt,
               draft: ReplyDraft, *, calibrate: bool = True) -> StoredRound:
    """Stores the reply (completing its draft), its tool calls and the usage in one transaction, with the
    calibration learned from the round (not from a request the server cut)."""
    state, model = attempt.state, attempt.model
    provider_id, model_id = model.provider_id, model.id
    reply = draft.message(
        state, incomplete=False, input_tokens=state.usage.input_tokens or None,
        output_tokens=state.usage.output_tokens or None,
    )
    calls = [
        turn.factory.tool_call(call.id, call.name, call.input, provider_id=provider_id, model_id=model_id,
                               reasoning=state.reasoning(call.id))
        for call in state.calls
    ]
    with turns.transaction():  # the calibration learned from this round is stored with it
        stored = turns.save_round(reply, calls, state.usage, draft=draft.written is not None)
        if calibrate and state.usage.input_tokens > 0 and attempt.planned is not None:
            estimator.learn(
                calibration_key(provider_id, model_id), state.usage.input_tokens, attempt.planned.size
            )
    turn.attempt = turn.draft = None
    for call in state.calls:
        turn.pending_calls[call.id] = call.name
    return stored


def _last_user(messages: tuple[Message, ...]) -> Message | None:
    return next((m for m in reversed(messages) if m.type is MessageType.USER), None)
