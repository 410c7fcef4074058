"""Local fake provider servers speaking each provider's real HTTP+SSE wire format, for SDK-level tests.

Use as context managers; point the SDK at `.base_url`; read `.requests` (normalized), `.log` (raw) and `.stats`.
"""

from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import (
    Answer,
    Brain,
    BrainExhausted,
    ErrorReply,
    NormalizedMessage,
    NormalizedRequest,
    Reply,
    ScriptedBrain,
    TextPart,
    ToolCall,
    ToolCallPart,
    ToolResultPart,
)
from tests.fakeservers.gemini_server import FakeGeminiServer
from tests.fakeservers.openai_server import FakeOpenAIServer
from tests.fakeservers.server import FakeProviderServer, RawRequest, RequestStats
from tests.fakeservers.tokens import approx_counter, o200k_counter
from tests.fakeservers.trio import FakeServers, fake_provider_servers

__all__ = [
    "Answer",
    "Brain",
    "BrainExhausted",
    "ErrorReply",
    "FakeAnthropicServer",
    "FakeGeminiServer",
    "FakeOpenAIServer",
    "FakeProviderServer",
    "FakeServers",
    "NormalizedMessage",
    "NormalizedRequest",
    "RawRequest",
    "Reply",
    "RequestStats",
    "ScriptedBrain",
    "TextPart",
    "ToolCall",
    "ToolCallPart",
    "ToolResultPart",
    "approx_counter",
    "fake_provider_servers",
    "o200k_counter",
]
