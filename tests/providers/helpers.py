"""Builders for stored message lists and a collector for adapter streams, shared by the provider tests."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

from data.providers.factory import SdkAdapterFactory
from data.providers.retry import RetryPolicy
from domain.events import StreamEvent
from domain.models import Message, MessageType, Provider, ProviderType, ToolDefinition, ToolStatus
from domain.provider_ports import ModelApiAdapter

KEY = "sk-test-SECRET-4242-key"
WEATHER = ToolDefinition(
    name="get_weather",
    description="Current weather for a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


class History:
    """Appends stored-shape messages with increasing seq."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def _add(self, type_: MessageType, **fields: Any) -> History:
        n = len(self.messages)
        self.messages.append(Message(id=f"m{n}", session_id="s1", type=type_, seq=n, **fields))
        return self

    def user(self, text: str) -> History:
        return self._add(MessageType.USER, content=text)

    def ai(self, text: str = "") -> History:
        return self._add(MessageType.AI_RESPONSE, content=text)

    def call(self, call_id: str, name: str, args: dict[str, Any]) -> History:
        return self._add(MessageType.TOOL_CALL, tool_call_id=call_id, tool_name=name, tool_input=json.dumps(args))

    def result(self, call_id: str, name: str, output: str, error: bool = False) -> History:
        status = ToolStatus.ERROR if error else ToolStatus.SUCCESS
        return self._add(
            MessageType.TOOL_RESULT, tool_call_id=call_id, tool_name=name, tool_output=output, tool_status=status
        )

    def error(self, text: str) -> History:
        return self._add(MessageType.ERROR, content=text)


class RecordingSleep:
    """An instant asyncio.sleep stand-in that remembers the delays it was asked for."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def adapter_for(
    kind: ProviderType,
    base_url: str,
    *,
    key: str | None = KEY,
    retries: int = 0,
    sleep: RecordingSleep | None = None,
) -> ModelApiAdapter:
    """An adapter made by the real factory, pointed at a fake server."""
    policy = RetryPolicy(max_retries=retries, sleep=sleep or RecordingSleep())
    factory = SdkAdapterFactory(timeout=10.0, env={}, retry=policy)
    return factory.create(Provider(id=kind.value, name=kind.value.title(), type=kind, base_url=base_url), key)


async def collect(stream: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    """All events of a stream."""
    return [event async for event in stream]


def stream(adapter: ModelApiAdapter, history: History, *, system: str | None = "Be brief.",
           tools: tuple[ToolDefinition, ...] = (WEATHER,), model: str = "test-model") -> AsyncIterator[StreamEvent]:
    """send_message_stream with the usual test arguments."""
    return adapter.send_message_stream(
        model_id=model, system_prompt=system, messages=history.messages, tools=tools, max_output_tokens=512
    )


def post_json(url: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    """POSTs a JSON body straight to a fake server (no SDK): the status and the JSON answer, an error's included."""
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
