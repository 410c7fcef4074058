"""Gemini reasoning through genai.Client(...).aio against the fake: thinking config per model family, thought
summaries, every part's thought signature captured and sent back on the same part to the same model only, the
placeholder only for calls that never had one, and the fake's Gemini 3 signature rules."""

from __future__ import annotations

import base64

import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from domain.errors import ReasoningRejected
from domain.events import ReasoningDone, StreamDone, TextDelta, ThinkingDelta, ToolCallRequested, UsageReported
from domain.models import CapabilitySource, ModelCapabilities, ProviderType, ReasoningKind, ThinkingForm
from tests.fakeservers import FakeGeminiServer, Reply, ScriptedBrain, ToolCall
from tests.fakeservers.gemini_rules import thinking_config
from tests.providers.helpers import History, adapter_for
from tests.providers.reasoning_helpers import answer_calls, record_round, send

GEMINI = ProviderType.GEMINI
PRO3, FLASH3, FLASH25, PRO25 = "gemini-3-pro-preview", "gemini-3-flash-preview", "gemini-2.5-flash", "gemini-2.5-pro"
PLACEHOLDER = "skip_thought_signature_validator"
SOURCED = (("thinking", CapabilitySource.REGISTRY), ("efforts", CapabilitySource.REGISTRY))
WEATHER_CALL = Reply(thinking=("Need the weather.",), tool_calls=(ToolCall("get_weather", {"city": "Lima"}),))


def model_parts(raw: dict, index: int) -> list[dict]:
    """The parts of the index-th model content of a request body."""
    return [c for c in raw["contents"] if c["role"] == "model"][index]["parts"]


def same_bytes(a: str, b: str) -> bool:
    """Two base64 texts (standard or URL-safe) of the same bytes."""
    def decode(text: str) -> bytes:
        return base64.b64decode((text + "=" * (-len(text) % 4)).replace("-", "+").replace("_", "/"))
    return decode(a) == decode(b)


async def test_a_gemini_3_tool_loop_sends_each_function_call_back_with_its_own_signature():
    brain = ScriptedBrain([WEATHER_CALL, Reply(tool_calls=(ToolCall("get_weather", {"city": "Quito"}),)), "Done."])
    with FakeGeminiServer(brain) as fake:
        adapter = adapter_for(GEMINI, fake.base_url)
        history = History().user("Weather in Lima, then Quito?")
        first = await send(adapter, history, PRO3)
        answer_calls(record_round(history, first, "gemini", PRO3), first)
        second = await send(adapter, history, PRO3)
        answer_calls(record_round(history, second, "gemini", PRO3), second)
        third = await send(adapter, history, PRO3)
    assert third[-1] == StreamDone("end_turn") and [e.text for e in third if isinstance(e, TextDelta)] == ["Done."]
    signatures = [e for e in first if isinstance(e, ReasoningDone) and e.call_id is not None]
    call = next(e for e in first if isinstance(e, ToolCallRequested))
    assert [(s.call_id, s.block.kind, s.block.provider_id, s.block.model_id) for s in signatures] == [
        (call.id, ReasoningKind.SIGNATURE, "gemini", PRO3)]
    assert signatures[0].block.signature == fake.issued[0]  # kept exactly as streamed
    sent = fake.requests[-1].raw
    for step in (0, 1):  # every step of the current turn carries the signature Gemini gave that call, never the dummy
        part = model_parts(sent, step)[0]
        assert part["thoughtSignature"] != PLACEHOLDER
    assert same_bytes(model_parts(sent, 0)[0]["thoughtSignature"], signatures[0].block.signature)


async def test_thought_summaries_stream_as_thinking_and_are_kept_as_a_block_with_reasoning_tokens():
    with FakeGeminiServer(ScriptedBrain([Reply(thinking=("Weighing ", "options."), text_chunks=("Go.",))])) as fake:
        events = await send(adapter_for(GEMINI, fake.base_url), History().user("hi"), PRO3, "high")
    assert [e.text for e in events if isinstance(e, ThinkingDelta)] == ["Weighing ", "options."]
    blocks = [e.block for e in events if isinstance(e, ReasoningDone)]
    assert [(b.kind, b.text) for b in blocks] == [(ReasoningKind.THINKING, "Weighing options."),
                                                  (ReasoningKind.SIGNATURE, "")]
    usage = next(e.usage for e in events if isinstance(e, UsageReported))
    assert 0 < usage.reasoning_tokens < usage.output_tokens


async def test_a_text_reply_signature_goes_back_on_the_reply_text_part():
    with FakeGeminiServer(ScriptedBrain([Reply.of_text("Hello there."), "Again."])) as fake:
        adapter = adapter_for(GEMINI, fake.base_url)
        history = History().user("hi")
        first = await send(adapter, history, PRO3)
        record_round(history, first, "gemini", PRO3).user("and again")
        await send(adapter, history, PRO3)
    signature = next(e.block for e in first if isinstance(e, ReasoningDone) and e.block.kind is ReasoningKind.SIGNATURE)
    parts = model_parts(fake.requests[-1].raw, 0)
    assert [p["text"] for p in parts] == ["Hello there."]
    assert same_bytes(parts[0]["thoughtSignature"], signature.signature or "")


async def test_parallel_calls_send_back_the_one_signature_on_the_first_call_and_nothing_on_the_others():
    calls = (ToolCall("get_weather", {"city": "Oslo"}), ToolCall("get_weather", {"city": "Rome"}))
    with FakeGeminiServer(ScriptedBrain([Reply(tool_calls=calls), "Both sunny."])) as fake:
        adapter = adapter_for(GEMINI, fake.base_url)
        history = History().user("Oslo and Rome?")
        first = await send(adapter, history, PRO3)
        answer_calls(record_round(history, first, "gemini", PRO3), first)
        await send(adapter, history, PRO3)
    parts = model_parts(fake.requests[-1].raw, 0)
    assert parts[0]["thoughtSignature"] != PLACEHOLDER and "thoughtSignature" not in parts[1]


async def test_another_models_signatures_are_never_sent_the_placeholder_stands_in_for_them():
    with FakeGeminiServer(ScriptedBrain([WEATHER_CALL, "Warm in Lima."])) as fake:
        adapter = adapter_for(GEMINI, fake.base_url)
        history = History().user("Weather in Lima?")
        first = await send(adapter, history, PRO3)
        answer_calls(record_round(history, first, "gemini", PRO3), first)
        switched = await send(adapter, history, FLASH3)  # the fake refuses Pro's signature for Flash as corrupted
    assert switched[-1] == StreamDone("end_turn")
    assert model_parts(fake.requests[-1].raw, 0)[0]["thoughtSignature"] == PLACEHOLDER


async def test_history_from_another_provider_gets_the_placeholder_on_the_first_call_of_each_step_only():
    history = History().user("q").ai().call("a", "get_weather", {"city": "X"}).call("b", "get_weather", {})
    history.result("a", "get_weather", "1").result("b", "get_weather", "2")
    with FakeGeminiServer(ScriptedBrain(["ok"])) as fake:
        events = await send(adapter_for(GEMINI, fake.base_url), history, PRO3)
    assert events[-1] == StreamDone("end_turn")
    parts = model_parts(fake.requests[-1].raw, 0)
    assert parts[0]["thoughtSignature"] == PLACEHOLDER and "thoughtSignature" not in parts[1]


@pytest.mark.parametrize(("model", "level", "expected"), [
    (PRO3, "high", {"thinkingLevel": "HIGH", "includeThoughts": True}),
    (PRO3, "medium", {"thinkingLevel": "LOW", "includeThoughts": True}),  # 3 Pro: LOW or HIGH; the nearest lower
    ("gemini-3.1-pro-preview", "medium", {"thinkingLevel": "MEDIUM", "includeThoughts": True}),
    (PRO3, "max", {"thinkingLevel": "HIGH", "includeThoughts": True}),
    (PRO3, "off", {"thinkingLevel": "LOW", "includeThoughts": False}),  # 3 Pro always thinks
    (FLASH3, "off", {"thinkingLevel": "MINIMAL", "includeThoughts": False}),
    (FLASH3, "medium", {"thinkingLevel": "MEDIUM", "includeThoughts": True}),
    (PRO3, "auto", {"includeThoughts": True}),
    (FLASH25, "off", {"thinkingBudget": 0, "includeThoughts": False}),
    (FLASH25, "low", {"thinkingBudget": 1024, "includeThoughts": True}),
    (PRO25, "off", {"thinkingBudget": 128, "includeThoughts": False}),  # 2.5 Pro cannot stop thinking
    (PRO25, "max", {"thinkingBudget": 32768, "includeThoughts": True}),
    (FLASH25, "auto", {"includeThoughts": True}),
    ("gemini-2.0-flash", "high", None),  # no thinking: nothing it could refuse
])
async def test_the_reasoning_level_maps_to_the_models_thinking_config(model, level, expected):
    with FakeGeminiServer(ScriptedBrain(["ok"])) as fake:
        await send(adapter_for(GEMINI, fake.base_url), History().user("hi"), model, level)
    raw = fake.requests[-1].raw
    assert (thinking_config(raw) if "thinkingConfig" in raw.get("generationConfig", {}) else None) == expected


@pytest.mark.parametrize(("model", "caps", "level", "expected"), [
    (PRO3, ModelCapabilities(ThinkingForm.ALWAYS_ON, efforts=("low", "high"), sources=SOURCED), "off",
     {"thinkingLevel": "LOW", "includeThoughts": False}),
    (FLASH3, ModelCapabilities(ThinkingForm.ALWAYS_ON, efforts=("low", "medium", "high"), sources=SOURCED), "off",
     {"thinkingLevel": "MINIMAL", "includeThoughts": False}),  # the domain's efforts have no MINIMAL; Flash does
    (FLASH3, ModelCapabilities(ThinkingForm.ALWAYS_ON, efforts=("low", "high"), sources=SOURCED), "medium",
     {"thinkingLevel": "LOW", "includeThoughts": True}),
    (FLASH3, ModelCapabilities(ThinkingForm.NONE, sources=SOURCED), "high", None),
])
async def test_known_capabilities_decide_the_levels_a_gemini_3_model_is_sent(model, caps, level, expected):
    with FakeGeminiServer(ScriptedBrain(["ok"])) as fake:
        await send(adapter_for(GEMINI, fake.base_url), History().user("hi"), model, level, capabilities=caps)
    raw = fake.requests[-1].raw
    assert (thinking_config(raw) if "thinkingConfig" in raw.get("generationConfig", {}) else None) == expected


async def test_the_model_list_says_which_models_think_and_their_levels_follow_the_family():
    limits = {"input_token_limit": 131_072, "output_token_limit": 8_192}
    models = [{"id": "gemini-3.1-pro-preview", **limits, "thinking": True},
              {"id": "gemini-2.5-flash", **limits, "thinking": True},
              {"id": "gemma-3-27b-it", **limits, "thinking": False}]
    with FakeGeminiServer(ScriptedBrain(["ok"]), models=models) as fake:
        adapter = adapter_for(GEMINI, fake.base_url)
        listed = {m.id: m.capabilities for m in await adapter.list_models()}
        await send(adapter, History().user("hi"), "gemma-3-27b-it", "high")  # listed as not thinking: nothing sent
    pro, flash, gemma = listed["gemini-3.1-pro-preview"], listed["gemini-2.5-flash"], listed["gemma-3-27b-it"]
    assert pro is not None and (pro.thinking, pro.efforts) == (ThinkingForm.ALWAYS_ON, ("low", "medium", "high"))
    assert pro.source("thinking") is CapabilitySource.PROVIDER_API and pro.source("efforts") is CapabilitySource.FAMILY
    assert pro.reasoning_levels() == ("auto", "low", "medium", "high")
    assert flash is not None and flash.thinking is ThinkingForm.BUDGET and flash.vision  # the registry fills the rest
    assert gemma is not None and gemma.thinking is ThinkingForm.NONE
    assert "thinkingConfig" not in fake.requests[-1].raw.get("generationConfig", {})


async def test_a_fixed_thinking_budget_raises_the_output_limit_so_the_answer_still_fits():
    with FakeGeminiServer(ScriptedBrain(["ok"])) as fake:
        await send(adapter_for(GEMINI, fake.base_url), History().user("hi"), FLASH25, "medium")
    assert fake.requests[-1].raw["generationConfig"]["maxOutputTokens"] == 512 + 8192


# --- the fake enforces the real rules (through the SDK itself, no adapter) -------------------------------------------

def gemini_client(fake: FakeGeminiServer) -> genai.Client:
    """The genai SDK's own client on the fake (no adapter): what the fake refuses, it refuses to the SDK itself."""
    options = types.HttpOptions(api_version="v1beta", base_url=fake.base_url)
    return genai.Client(api_key="k", vertexai=False, http_options=options)


def _loop(signature: bytes | None) -> list[types.Content]:
    call = types.Part(function_call=types.FunctionCall(name="get_weather", args={"city": "Lima"}),
                      thought_signature=signature)
    result = types.Part(function_response=types.FunctionResponse(name="get_weather", response={"output": "warm"}))
    return [types.Content(role="user", parts=[types.Part(text="Weather?")]), types.Content(role="model", parts=[call]),
            types.Content(role="user", parts=[result])]


async def test_the_fake_refuses_a_gemini_3_function_call_without_a_signature_with_the_real_message():
    with FakeGeminiServer(ScriptedBrain(["ok", "ok"])) as fake:
        client = gemini_client(fake)
        with pytest.raises(genai_errors.ClientError) as refused:
            await client.aio.models.generate_content(model=PRO3, contents=_loop(None))
        accepted = await client.aio.models.generate_content(model=FLASH25, contents=_loop(None))  # 2.5 does not check
        placeholder = base64.urlsafe_b64decode(PLACEHOLDER + "=" * (-len(PLACEHOLDER) % 4))
        dummy = await client.aio.models.generate_content(model=PRO3, contents=_loop(placeholder))
    assert refused.value.code == 400 and refused.value.status == "INVALID_ARGUMENT"
    assert refused.value.message == (
        "Function call is missing a thought_signature in functionCall parts. This is required for tools to work "
        "correctly, and missing thought_signature may lead to degraded model performance. Additional data, function "
        "call `default_api:get_weather` , position 2. Please refer to "
        "https://ai.google.dev/gemini-api/docs/thought-signatures for more details.")
    assert accepted.text == "ok" and dummy.text == "ok"


async def test_an_altered_signature_is_corrupted_and_the_adapter_says_the_reasoning_was_rejected():
    with FakeGeminiServer(ScriptedBrain([WEATHER_CALL])) as fake:
        client = gemini_client(fake)
        with pytest.raises(genai_errors.ClientError) as refused:
            await client.aio.models.generate_content(model=PRO3, contents=_loop(b"FGSIG1" + bytes(24)))
        adapter = adapter_for(GEMINI, fake.base_url)
        history = History().user("Weather?")
        first = await send(adapter, history, PRO3)
        answer_calls(record_round(history, first, "gemini", PRO3), first)
        bound = history.messages[2]
        forged = bound.reasoning[0].__class__(**{**bound.reasoning[0].__dict__, "signature": "AAAA" * 8})
        history.messages[2] = bound.__class__(**{**bound.__dict__, "reasoning": (forged,)})
        with pytest.raises(ReasoningRejected):
            await send(adapter, history, PRO3)
    assert refused.value.message == "Corrupted thought signature."
