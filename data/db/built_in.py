"""The built-in rows every store is seeded with, as the repositories order and choose them (no SQLAlchemy)."""

from __future__ import annotations

DEFAULT_AGENT_ID = "general-assistant"
BUILT_IN_ORDER = {"anthropic": 0, "openai": 1, "gemini": 2}  # the built-in providers first, in this order
