"""All three fake servers at once, sharing one brain, with the environment that points the app at them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import Brain
from tests.fakeservers.gemini_server import FakeGeminiServer
from tests.fakeservers.openai_server import FakeOpenAIServer
from tests.fakeservers.tokens import TokenCounter, approx_counter


@dataclass(frozen=True)
class FakeServers:
    """The running Anthropic, OpenAI and Gemini fakes."""

    anthropic: FakeAnthropicServer
    openai: FakeOpenAIServer
    gemini: FakeGeminiServer

    def env(self, key: str = "sk-fake-key") -> dict[str, str]:
        """Environment variables that send the app's default providers (and their keys) to the fakes."""
        return {
            "ANTHROPIC_BASE_URL": self.anthropic.base_url,
            "OPENAI_BASE_URL": self.openai.base_url,
            "GOOGLE_GEMINI_BASE_URL": self.gemini.base_url,
            "ANTHROPIC_API_KEY": key,
            "OPENAI_API_KEY": key,
            "GEMINI_API_KEY": key,
        }


@contextmanager
def fake_provider_servers(
    brain: Brain,
    *,
    counter: TokenCounter = approx_counter,
    context_windows: Mapping[str, int] | None = None,
    **options: Any,
) -> Iterator[FakeServers]:
    """Starts the three fakes with one brain (and counter, windows, models, api_key); stops them on exit."""
    with ExitStack() as stack:
        made = [
            stack.enter_context(cls(brain, counter=counter, context_windows=context_windows, **options))
            for cls in (FakeAnthropicServer, FakeOpenAIServer, FakeGeminiServer)
        ]
        yield FakeServers(*made)  # type: ignore[arg-type]
