"""Auto-compaction: summarizes the older part of a session once it nears the model's window."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.context.estimator import TokenEstimator
from domain.context.settings_source import SettingsProvider
from domain.models import ModelId, ProviderId, SessionId, ToolDefinition
from domain.ports import Clock, MessageRepository, ModelRepository, SessionRepository, Summarizer


@dataclass(frozen=True)
class CompactResult:
    """What a compaction attempt did; `reason` is a short tag when nothing was compacted or it fell back."""

    did_compact: bool
    fallback: bool = False
    tokens_before: int = 0
    tokens_after: int = 0
    summary_tokens: int = 0
    reason: str = ""


class AutoCompactUseCase:
    """Summarizes messages before a cut point into the session's summary when the context passes the threshold."""

    def __init__(
        self,
        sessions: SessionRepository,
        messages: MessageRepository,
        models: ModelRepository,
        summarizer: Summarizer,
        estimator: TokenEstimator,
        clock: Clock,
        settings_provider: SettingsProvider,
    ) -> None:
        self._sessions = sessions
        self._messages = messages
        self._models = models
        self._summarizer = summarizer
        self._estimator = estimator
        self._clock = clock
        self._settings_provider = settings_provider

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
        raise NotImplementedError
