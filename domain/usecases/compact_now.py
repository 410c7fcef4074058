"""Compact now: the user asks for a compaction, optionally with focus instructions for the summary."""

from __future__ import annotations

from collections.abc import Sequence

from domain.errors import InvalidInput, NotFound
from domain.models import ModelId, ProviderId, SessionId, ToolDefinition
from domain.ports import SessionRepository
from domain.usecases.auto_compact import AutoCompactUseCase, CompactResult

MAX_INSTRUCTIONS_CHARS = 2_000


class CompactNowUseCase:
    """Forces a compaction of a session with its current (or the given) provider and model."""

    def __init__(self, sessions: SessionRepository, auto_compact: AutoCompactUseCase) -> None:
        self._sessions = sessions
        self._auto_compact = auto_compact

    async def __call__(
        self,
        session_id: SessionId,
        *,
        instructions: str | None = None,
        provider_id: ProviderId | None = None,
        model_id: ModelId | None = None,
        system_prompt: str | None = None,
        tools: Sequence[ToolDefinition] = (),
    ) -> CompactResult:
        """Compacts regardless of the threshold; InvalidInput when no model is known for the session."""
        session = self._sessions.get(session_id)
        if session is None:
            raise NotFound("session", session_id)
        provider = provider_id or session.current_provider_id
        model = model_id or session.current_model_id
        if not provider or not model:
            raise InvalidInput("Choose a provider and model for this conversation before compacting it.")
        focus = (instructions or "").strip() or None
        if focus is not None and len(focus) > MAX_INSTRUCTIONS_CHARS:
            raise InvalidInput(f"Focus instructions are too long (at most {MAX_INSTRUCTIONS_CHARS} characters).")
        return await self._auto_compact(
            session_id,
            provider_id=provider,
            model_id=model,
            system_prompt=system_prompt,
            tools=tools,
            force=True,
            instructions=focus,
            trigger="manual",
        )
