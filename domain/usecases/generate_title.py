"""Gives a session a short title drawn from its first exchange."""

from __future__ import annotations

from domain.errors import ProviderError
from domain.lookup import require_session
from domain.models import ModelId, ProviderId, SessionId
from domain.ports import SessionRepository
from domain.services.adapters import ProviderAdapters

TITLE_MAX_CHARS = 60
TITLE_SYSTEM = "You write short titles for conversations. Answer with the title only."
TITLE_PROMPT = (
    "Write a title of at most six words for the conversation below. No quotes, no trailing punctuation, "
    "same language as the user.\n\nUser: {user}\n\nAssistant: {reply}"
)
EXCERPT_CHARS = 1_500


def clean_title(raw: str) -> str | None:
    """The first non-blank line of a model's answer without quotes, labels or trailing dots; None when empty."""
    for line in raw.splitlines():
        text = line.strip().strip("*#").strip()
        if text.lower().startswith("title:"):
            text = text[len("title:"):].strip()
        text = text.strip("\"'`“”‘’«»").strip().rstrip(".").strip()
        if text:
            if len(text) > TITLE_MAX_CHARS:
                text = text[: TITLE_MAX_CHARS - 1].rstrip() + "…"
            return text
    return None


class GenerateTitleUseCase:
    """Asks the session's model for a title; any provider failure leaves the title as it was."""

    def __init__(self, sessions: SessionRepository, adapters: ProviderAdapters) -> None:
        self._sessions = sessions
        self._adapters = adapters

    async def __call__(
        self, session_id: SessionId, *, provider_id: ProviderId, model_id: ModelId, user_text: str, reply_text: str
    ) -> str | None:
        """Stores and returns the new title, or None when the model gave none or failed."""
        session = require_session(self._sessions, session_id)
        adapter = self._adapters.for_provider(provider_id)
        prompt = TITLE_PROMPT.format(user=user_text[:EXCERPT_CHARS], reply=reply_text[:EXCERPT_CHARS])
        try:
            raw = await adapter.generate_simple_completion(model_id, prompt, system=TITLE_SYSTEM, max_tokens=40)
        except ProviderError:
            return None
        title = clean_title(raw)
        if title is None:
            return None
        self._sessions.update_fields(session.id, title=title)
        return title
