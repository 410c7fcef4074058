"""Compact now: the user asks for a compaction, optionally with focus instructions for the summary."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, nullcontext

from domain.chat.compaction import CompactResult
from domain.chat.turn_gate import TurnGate
from domain.context.context_loader import SessionContextLoader
from domain.errors import InvalidInput
from domain.models import ModelId, ProviderId, SessionId
from domain.usecases.auto_compact import AutoCompactUseCase

MAX_INSTRUCTIONS_CHARS = 2_000
BUSY_ACTION = "Compact again when it is done, or queue behind it (sessions compact --wait)"


class CompactNowUseCase:
    """Forces a compaction of a session with its current (or the given) provider and model."""

    def __init__(self, contexts: SessionContextLoader, auto_compact: AutoCompactUseCase, *,
                 gate: TurnGate | None = None) -> None:
        """`gate`: a compaction waits for (or is refused while) a turn running in the conversation: the turn's
        reply would land after a summary made without it, or the summary would cover half a turn."""
        self._contexts = contexts
        self._auto_compact = auto_compact
        self._gate = gate

    async def __call__(
        self,
        session_id: SessionId,
        *,
        instructions: str | None = None,
        provider_id: ProviderId | None = None,
        model_id: ModelId | None = None,
        wait: bool = False,
        on_wait: Callable[[str], None] | None = None,
    ) -> CompactResult:
        """Compacts regardless of the threshold; InvalidInput when no model is known for the session;
        ConversationBusy while a turn runs in it, unless `wait` (then `on_wait` hears why, and it runs after)."""
        focus = (instructions or "").strip() or None
        if focus is not None and len(focus) > MAX_INSTRUCTIONS_CHARS:
            raise InvalidInput(f"Focus instructions are too long (at most {MAX_INSTRUCTIONS_CHARS} characters).")
        held: AbstractAsyncContextManager[None] = nullcontext() if self._gate is None else self._gate.held(
            session_id.strip(), BUSY_ACTION, wait=wait, on_wait=on_wait)
        async with held:  # the context is loaded once the conversation is ours: it holds the other turn's reply
            ctx = self._contexts.load(session_id, provider_id=provider_id, model_id=model_id, strict=False)
            if ctx.model is None:
                raise InvalidInput("Choose a provider and model for this conversation before compacting it.")
            return await self._auto_compact(ctx, force=True, instructions=focus, trigger="manual")
