"""Compact now: the user asks for a compaction, optionally with focus instructions for the summary."""

from __future__ import annotations

from domain.chat.compaction import CompactResult
from domain.context.context_loader import SessionContextLoader
from domain.errors import InvalidInput
from domain.models import ModelId, ProviderId, SessionId
from domain.usecases.auto_compact import AutoCompactUseCase

MAX_INSTRUCTIONS_CHARS = 2_000


class CompactNowUseCase:
    """Forces a compaction of a session with its current (or the given) provider and model."""

    def __init__(self, contexts: SessionContextLoader, auto_compact: AutoCompactUseCase) -> None:
        self._contexts = contexts
        self._auto_compact = auto_compact

    async def __call__(
        self,
        session_id: SessionId,
        *,
        instructions: str | None = None,
        provider_id: ProviderId | None = None,
        model_id: ModelId | None = None,
    ) -> CompactResult:
        """Compacts regardless of the threshold; InvalidInput when no model is known for the session."""
        focus = (instructions or "").strip() or None
        if focus is not None and len(focus) > MAX_INSTRUCTIONS_CHARS:
            raise InvalidInput(f"Focus instructions are too long (at most {MAX_INSTRUCTIONS_CHARS} characters).")
        ctx = self._contexts.load(session_id, provider_id=provider_id, model_id=model_id, strict=False)
        if ctx.model is None:
            raise InvalidInput("Choose a provider and model for this conversation before compacting it.")
        return await self._auto_compact(ctx, force=True, instructions=focus, trigger="manual")
