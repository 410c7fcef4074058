"""Which model writes a session's summary: a cheaper sibling on the same provider, else the session model."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from domain.models import AiModel

_NOT_CHAT = re.compile(r"embed|tts|audio|realtime|transcribe|image|whisper|dall-e|moderation|search|live|vision",
                       re.IGNORECASE)


def choose_compaction_model(
    session_model: AiModel, candidates: Sequence[AiModel], override: str | None = None,
    families: Sequence[tuple[str, str]] = (), today: date | None = None,
) -> AiModel:
    """The override when given, else a cheaper sibling of the session model on its provider, else the model itself.

    `families`: (a model family's id pattern, what its cheap sibling's id contains), from the provider rules
    (ProviderRules.summary_families); a model of no listed family (a local or unknown one) summarizes its own
    session, so no second model has to be loaded. A sibling its vendor has retired (by `today`) is never chosen, and
    one whose retirement is announced only when no sibling without one is there."""
    same_provider = [c for c in candidates if c.provider_id == session_model.provider_id]
    if override:
        found = next((c for c in same_provider if c.id == override), None)
        return found or AiModel(id=override, display_name=None, provider_id=session_model.provider_id)
    for family, cheap in ((re.compile(f, re.I), re.compile(c, re.I)) for f, c in families):
        if not family.search(session_model.id):
            continue
        if cheap.search(session_model.id):
            return session_model
        siblings = [
            c for c in same_provider
            if family.search(c.id) and cheap.search(c.id) and not _NOT_CHAT.search(c.id) and "lite" not in c.id
            and not (today is not None and c.retirement is not None and c.retirement.passed(today))
        ]
        if not siblings:
            return session_model
        return max(siblings, key=lambda c: (c.retirement is None, _common_prefix(c.id, session_model.id),
                                            c.is_default, c.id))
    return session_model


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
