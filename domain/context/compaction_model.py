"""Which model writes a session's summary: a cheaper sibling on the same provider, else the session model."""

from __future__ import annotations

import re
from collections.abc import Sequence

from domain.models import AiModel

_CHEAP = re.compile(r"haiku|mini|flash|nano|lite|small", re.IGNORECASE)


def choose_compaction_model(
    session_model: AiModel, candidates: Sequence[AiModel], override: str | None = None
) -> AiModel:
    """The override when given, else a cheaper sibling of the session model on its provider, else the model itself."""
    raise NotImplementedError
