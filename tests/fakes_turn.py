"""Fakes for the turn machinery: a scripted model adapter, its factory, and a tool executor."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.events import StreamDone, StreamEvent, TextDelta, ToolCallRequested, UsageReported
from domain.models import AiModel, Message, ModelId, Provider, ToolDefinition, Usage
from domain.ports import ToolContext, ToolOutcome


@dataclass(frozen=True)
class SentRequest:
    """One streaming request as the adapter received it."""

    model_id: ModelId
    system_prompt: str | None
    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...]
    max_output_tokens: int


class Hang:
    """A script step that waits until released (or forever), to test cancellation midway."""

    def __init__(self) -> None:
        self.reached = asyncio.Event()
        self.release = asyncio.Event()


ScriptStep = StreamEvent | Exception | Hang
Script = list[ScriptStep] | Exception


def reply(text: str, *, input_tokens: int = 100, output_tokens: int = 10, stop: str = "end_turn") -> list[ScriptStep]:
    """A script for a plain text answer with usage."""
    return [TextDelta(text), UsageReported(Usage(input_tokens, output_tokens)), StreamDone(stop)]  # type: ignore[arg-type]


def tool_round(*calls: tuple[str, str, Mapping[str, Any]], text: str = "", input_tokens: int = 100) -> list[ScriptStep]:
    """A script for an answer that calls tools: (call_id, name, input) each."""
    steps: list[ScriptStep] = [TextDelta(text)] if text else []
    steps += [ToolCallRequested(cid, name, dict(args)) for cid, name, args in calls]
    steps += [UsageReported(Usage(input_tokens, 5)), StreamDone("tool_use")]
    return steps


class FakeModelApiAdapter:
    """Plays queued scripts, one per streaming request, and records every request and completion prompt."""

    def __init__(self) -> None:
        self.scripts: deque[Script] = deque()
        self.requests: list[SentRequest] = []
        self.completions: deque[str | Exception] = deque()
        self.completion_prompts: list[tuple[ModelId, str, str | None, int]] = []
        self.models: list[AiModel] = []

    def send_message_stream(
        self,
        *,
        model_id: ModelId,
        system_prompt: str | None,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        max_output_tokens: int,
    ) -> AsyncIterator[StreamEvent]:
        self.requests.append(SentRequest(model_id, system_prompt, tuple(messages), tuple(tools), max_output_tokens))
        if not self.scripts:
            raise AssertionError("FakeModelApiAdapter: a request arrived but no script is queued")
        return self._play(self.scripts.popleft())

    async def _play(self, script: Script) -> AsyncIterator[StreamEvent]:
        if isinstance(script, Exception):
            raise script
        for step in script:
            if isinstance(step, Hang):
                step.reached.set()
                await step.release.wait()
            elif isinstance(step, Exception):
                raise step
            else:
                yield step

    async def generate_simple_completion(
        self, model_id: ModelId, prompt: str, system: str | None = None, max_tokens: int = 2048
    ) -> str:
        self.completion_prompts.append((model_id, prompt, system, max_tokens))
        if not self.completions:
            raise AssertionError("FakeModelApiAdapter: a completion was requested but none is queued")
        item = self.completions.popleft()
        if isinstance(item, Exception):
            raise item
        return item

    async def list_models(self) -> list[AiModel]:
        return list(self.models)


class FakeAdapterFactory:
    """Hands out one fake adapter per provider id and records the keys it was given."""

    def __init__(self) -> None:
        self.adapters: dict[str, FakeModelApiAdapter] = {}
        self.keys_seen: list[tuple[str, str | None]] = []

    def adapter(self, provider_id: str) -> FakeModelApiAdapter:
        return self.adapters.setdefault(provider_id, FakeModelApiAdapter())

    def create(self, provider: Provider, api_key: str | None) -> FakeModelApiAdapter:
        self.keys_seen.append((provider.id, api_key))
        return self.adapter(provider.id)


ToolHandler = Callable[[Mapping[str, Any], ToolContext], "ToolOutcome | str"]


@dataclass
class FakeToolExecutor:
    """Runs hand-written handlers by name; unknown names and bad input become error outcomes, like the real one."""

    handlers: dict[str, ToolHandler] = field(default_factory=dict)
    calls: list[tuple[str, dict[str, Any], ToolContext]] = field(default_factory=list)

    def definitions(self, enabled: Sequence[str] | None = None) -> Sequence[ToolDefinition]:
        names = [n for n in self.handlers if enabled is None or n in enabled]
        return [ToolDefinition(n, f"The {n} tool.", {"type": "object", "properties": {}}) for n in names]

    async def execute(self, name: str, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutcome:
        self.calls.append((name, dict(arguments), context))
        handler = self.handlers.get(name)
        if handler is None:
            return ToolOutcome(f"Unknown tool {name!r}.", is_error=True)
        result = handler(arguments, context)
        return ToolOutcome(result) if isinstance(result, str) else result
