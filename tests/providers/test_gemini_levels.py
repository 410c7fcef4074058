"""Gemini thinking levels per model: Flash from 3.7 on and every Pro refuse MINIMAL, Gemini 2.x takes no level at all,
and the fake refuses both with the real 400 messages; the app sends "off" as each model's lowest level it takes
(LOW on Gemini 3.8 Flash, MINIMAL on 3.5 Flash-Lite and the Flash models before 3.7)."""

from __future__ import annotations

import pytest
from google.genai import errors as genai_errors
from google.genai import types

from data.registry import load_registry
from domain.models import ProviderType
from tests.fakeservers import FakeGeminiServer, ScriptedBrain
from tests.fakeservers.gemini_rules import NO_LEVEL, NO_MEDIUM, NO_MINIMAL, thinking_config
from tests.providers.helpers import History, adapter_for
from tests.providers.reasoning_helpers import send
from tests.providers.test_gemini_reasoning import gemini_client

REGISTRY = load_registry()


@pytest.mark.parametrize(("model", "level", "sent"), [
    ("gemini-3.8-flash", "off", "LOW"),  # a preset: its efforts from the registry
    ("gemini-3.8-flash", "max", "HIGH"),
    ("gemini-3.7-flash", "off", "LOW"),  # not a preset: its family
    ("gemini-3.5-flash-lite", "off", "MINIMAL"),
    ("gemini-3.5-flash", "off", "MINIMAL"),
    ("gemini-3.1-flash-lite", "off", "MINIMAL"),
    ("gemini-3.1-pro-preview", "off", "LOW"),
    ("gemini-3-pro-preview", "medium", "LOW"),  # 3 Pro takes no MEDIUM (the fake refuses it)
    ("gemini-3.1-pro-preview", "medium", "MEDIUM"),
])
async def test_off_is_the_lowest_level_the_model_takes_and_the_fake_accepts_it(model: str, level: str,
                                                                             sent: str) -> None:
    caps = REGISTRY.capabilities(model, "gemini")
    with FakeGeminiServer(ScriptedBrain(["ok"])) as fake:
        await send(adapter_for(ProviderType.GEMINI, fake.base_url), History().user("hi"), model, level,
                   capabilities=caps)
    assert thinking_config(fake.requests[-1].raw)["thinkingLevel"] == sent
    assert len(fake.requests) == 1  # answered, not refused and retried


@pytest.mark.parametrize(("model", "level", "message"), [
    ("gemini-3.8-flash", types.ThinkingLevel.MINIMAL, NO_MINIMAL),
    ("gemini-3.7-flash", types.ThinkingLevel.MINIMAL, NO_MINIMAL),
    ("gemini-3.1-pro-preview", types.ThinkingLevel.MINIMAL, NO_MINIMAL),
    ("gemini-2.5-flash", types.ThinkingLevel.LOW, NO_LEVEL),
    ("gemini-3.5-flash-lite", types.ThinkingLevel.MINIMAL, None),
    ("gemini-3-flash-preview", types.ThinkingLevel.MINIMAL, None),
    ("gemini-3.8-flash", types.ThinkingLevel.LOW, None),
    ("gemini-3-pro-preview", types.ThinkingLevel.MEDIUM, NO_MEDIUM),
    ("gemini-3.1-pro-preview", types.ThinkingLevel.MEDIUM, None),
])
async def test_the_fake_refuses_a_level_the_model_does_not_take_with_the_real_body(
        model: str, level: types.ThinkingLevel, message: str | None) -> None:
    config = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(thinking_level=level))
    with FakeGeminiServer(ScriptedBrain(["ok"])) as fake:
        client = gemini_client(fake)
        if message is None:
            answer = await client.aio.models.generate_content(model=model, contents="hi", config=config)
            assert answer.text == "ok"
            return
        with pytest.raises(genai_errors.ClientError) as refused:
            await client.aio.models.generate_content(model=model, contents="hi", config=config)
    assert refused.value.code == 400 and refused.value.status == "INVALID_ARGUMENT"
    assert refused.value.message == message
