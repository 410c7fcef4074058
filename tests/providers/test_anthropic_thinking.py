"""Anthropic thinking on the wire, per model form and reasoning level, through AsyncAnthropic and the fake server:
adaptive + effort, budget_tokens below a raised max_tokens, off and auto, signed blocks read back in order."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from domain.events import ReasoningDone, StreamEvent, ThinkingDelta, UsageReported
from domain.models import CapabilitySource, ProviderType, ReasoningKind, ThinkingForm
from domain.provider_ports import ModelApiAdapter
from tests.fakeservers import FakeAnthropicServer, Reply, ScriptedBrain
from tests.fakeservers.anthropic_rules import model_info, sign
from tests.providers.helpers import KEY, WEATHER, History, adapter_for, collect

ANTHROPIC = ProviderType.ANTHROPIC
EFFORTS = ("low", "medium", "high", "xhigh", "max")
MODELS = [
    model_info("claude-opus-4-7", thinking="adaptive_only", efforts=EFFORTS, max_input=1_000_000, max_tokens=128_000),
    model_info("claude-sonnet-4-6", thinking="adaptive", efforts=("low", "medium", "high", "max"),
               max_input=1_000_000),
    model_info("claude-sonnet-4-5-20250929", thinking="budget"),
    model_info("claude-next-9", thinking="always_on", efforts=EFFORTS, max_input=1_000_000, max_tokens=128_000),
]


async def _send(adapter: ModelApiAdapter, model: str, reasoning: str, history: History | None = None,
                max_output: int = 512) -> list[StreamEvent]:
    return await collect(adapter.send_message_stream(
        model_id=model, system_prompt="Be brief.", messages=(history or History().user("hi")).messages,
        tools=(WEATHER,), max_output_tokens=max_output, reasoning=reasoning))


async def _raw(model: str, reasoning: str, *, listed: bool = False) -> dict[str, Any]:
    with FakeAnthropicServer(ScriptedBrain(["ok"]), models=MODELS) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        if listed:
            await adapter.list_models()
        await _send(adapter, model, reasoning)
    return dict(fake.requests[-1].raw)


async def test_high_on_an_adaptive_model_asks_for_adaptive_thinking_at_high_effort_shown_summarized() -> None:
    raw = await _raw("claude-opus-4-7", "high")
    assert raw["thinking"] == {"type": "adaptive", "display": "summarized"}  # Opus 4.7 hides thinking unless asked
    assert raw["output_config"] == {"effort": "high"}
    assert raw["max_tokens"] > 512  # room to think above the reply's own
    assert not {"temperature", "top_p", "top_k"} & set(raw)


async def test_a_model_that_shows_its_thinking_gets_no_display_and_max_is_sent_where_the_model_takes_it() -> None:
    raw = await _raw("claude-sonnet-4-6", "max")
    assert raw["thinking"] == {"type": "adaptive"} and raw["output_config"] == {"effort": "max"}


async def test_an_effort_the_model_lacks_becomes_the_nearest_one_it_takes() -> None:
    raw = await _raw("claude-unknown-2", "max")  # the registry's claude-* family: adaptive, low / medium / high
    assert raw["thinking"] == {"type": "adaptive"} and raw["output_config"] == {"effort": "high"}


@pytest.mark.parametrize(("level", "budget"), [("low", 2048), ("medium", 8192), ("high", 16384), ("max", 32000)])
async def test_a_budget_model_gets_budget_tokens_below_a_max_tokens_raised_to_keep_the_replys_room(
    level: str, budget: int
) -> None:
    raw = await _raw("claude-sonnet-4-5-20250929", level)
    assert raw["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert raw["max_tokens"] == 512 + budget and "output_config" not in raw


async def test_the_raised_max_tokens_stays_within_the_models_output_limit() -> None:
    with FakeAnthropicServer(ScriptedBrain(["ok"]), models=MODELS) as fake:
        await _send(adapter_for(ANTHROPIC, fake.base_url), "claude-sonnet-4-5-20250929", "max", max_output=60_000)
    raw = fake.requests[-1].raw
    assert raw["max_tokens"] == 64_000 and 1024 <= raw["thinking"]["budget_tokens"] < 64_000


@pytest.mark.parametrize(("model", "level", "thinking"), [
    ("claude-sonnet-4-5-20250929", "off", None), ("claude-sonnet-4-5-20250929", "auto", None),
    ("claude-sonnet-4-6", "off", {"type": "disabled"}), ("claude-sonnet-4-6", "auto", None),
    ("claude-sonnet-5", "off", {"type": "disabled"}), ("claude-3-5-haiku-20241022", "high", None),
])
async def test_off_never_thinks_and_auto_keeps_the_default_of_a_model_that_does_not_think_unasked(
    model: str, level: str, thinking: dict[str, str] | None
) -> None:
    raw = await _raw(model, level)
    assert raw.get("thinking") == thinking and "output_config" not in raw and raw["max_tokens"] == 512


async def test_auto_on_a_model_that_thinks_unasked_keeps_its_effort_and_shows_the_thinking() -> None:
    raw = await _raw("claude-sonnet-5", "auto")  # adaptive, thinks by default, hides its thinking unless asked
    assert raw["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert "output_config" not in raw and raw["max_tokens"] > 512


async def test_capabilities_the_provider_lists_win_over_the_registrys_guess() -> None:
    raw = await _raw("claude-next-9", "off", listed=True)  # the family guesses adaptive; the API: always on
    assert raw["thinking"] == {"type": "adaptive"} and raw["output_config"] == {"effort": "low"}


async def test_a_thinking_form_the_model_refuses_is_learned_and_the_request_sent_again_in_the_right_one() -> None:
    with FakeAnthropicServer(ScriptedBrain(["ok", "again"]), models=MODELS) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        first = await _send(adapter, "claude-next-9", "off")  # guessed adaptive: disabled, refused, then learned
        await _send(adapter, "claude-next-9", "off")
    assert [e.text for e in first if hasattr(e, "text")] == ["ok"]
    sent = [entry.json().get("thinking") for entry in fake.log]
    assert sent == [{"type": "disabled"}, {"type": "adaptive"}, {"type": "adaptive"}]


async def test_an_always_on_model_is_never_asked_to_disable_thinking() -> None:
    with FakeAnthropicServer(ScriptedBrain(["a", "b", "c"]), models=MODELS) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        await adapter.list_models()
        for level in ("off", "auto", "high"):
            await _send(adapter, "claude-next-9", level)  # the fake answers 400 to thinking.type disabled
    assert [r.raw["thinking"]["type"] for r in fake.requests] == ["adaptive"] * 3


async def test_titles_and_summaries_never_think() -> None:
    with FakeAnthropicServer(ScriptedBrain(["A title"]), models=MODELS) as fake:
        text = await adapter_for(ANTHROPIC, fake.base_url).generate_simple_completion("claude-sonnet-4-6", "Name it")
    assert text == "A title" and fake.requests[-1].raw["thinking"] == {"type": "disabled"}


async def test_thinking_and_redacted_blocks_come_back_signed_in_order_with_their_model() -> None:
    brain = ScriptedBrain([Reply(thinking=("Let me ", "think."), redacted=1, text_chunks=("Answer",))])
    with FakeAnthropicServer(brain, models=MODELS) as fake:
        events = await _send(adapter_for(ANTHROPIC, fake.base_url), "claude-sonnet-4-5-20250929", "high")
    assert [e.text for e in events if isinstance(e, ThinkingDelta)] == ["Let me ", "think."]
    blocks = [e.block for e in events if isinstance(e, ReasoningDone)]
    assert [b.kind for b in blocks] == [ReasoningKind.THINKING, ReasoningKind.REDACTED]
    assert blocks[0].text == "Let me think."
    assert blocks[0].signature == sign("claude-sonnet-4-5-20250929", "Let me think.")
    assert blocks[1].data and blocks[1].signature is None
    assert all(b.belongs_to("anthropic", "claude-sonnet-4-5-20250929") for b in blocks)
    assert all(e.call_id is None for e in events if isinstance(e, ReasoningDone))


async def test_thinking_tokens_are_reported_apart_from_the_rest_of_the_output() -> None:
    brain = ScriptedBrain([Reply(thinking=("a long chain of thought " * 20,), text_chunks=("Short.",))])
    with FakeAnthropicServer(brain, models=MODELS) as fake:
        events = await _send(adapter_for(ANTHROPIC, fake.base_url), "claude-sonnet-4-5-20250929", "high")
    usage = next(e.usage for e in events if isinstance(e, UsageReported))
    assert 0 < usage.reasoning_tokens < usage.output_tokens == fake.stats[-1].output_tokens


async def test_list_models_reports_each_models_capabilities_and_their_sources() -> None:
    with FakeAnthropicServer(models=MODELS) as fake:
        listed = {m.id: m for m in await adapter_for(ANTHROPIC, fake.base_url).list_models()}
    opus = listed["claude-opus-4-7"].capabilities
    assert opus is not None and opus.thinking is ThinkingForm.ADAPTIVE and opus.efforts == EFFORTS
    assert opus.source("thinking") is CapabilitySource.PROVIDER_API and opus.vision and opus.pdf_input
    assert opus.hides_thinking and opus.source("hides_thinking") is CapabilitySource.REGISTRY
    assert opus.source("max_output_tokens") is CapabilitySource.PROVIDER_API
    assert listed["claude-next-9"].capabilities.thinking is ThinkingForm.ALWAYS_ON  # type: ignore[union-attr]
    assert listed["claude-sonnet-4-5-20250929"].capabilities.thinking is ThinkingForm.BUDGET  # type: ignore[union-attr]


def _client(fake: FakeAnthropicServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key=KEY, base_url=fake.base_url, max_retries=0)


def test_the_fake_refuses_budget_tokens_on_an_adaptive_only_model() -> None:
    with FakeAnthropicServer(ScriptedBrain(["ok"]), models=MODELS) as fake, pytest.raises(
        anthropic.BadRequestError, match=r'"thinking\.type\.enabled" is not supported for this model'
    ):
        _client(fake).messages.create(model="claude-opus-4-7", max_tokens=4096,
                                      messages=[{"role": "user", "content": "q"}],
                                      thinking={"type": "enabled", "budget_tokens": 2048})


def test_the_fake_refuses_a_budget_not_below_max_tokens() -> None:
    with FakeAnthropicServer(ScriptedBrain(["ok"]), models=MODELS) as fake, pytest.raises(
        anthropic.BadRequestError, match=r"`max_tokens` must be greater than `thinking\.budget_tokens`"
    ):
        _client(fake).messages.create(model="claude-sonnet-4-5-20250929", max_tokens=2048,
                                      messages=[{"role": "user", "content": "q"}],
                                      thinking={"type": "enabled", "budget_tokens": 2048})


def test_the_fake_refuses_disabling_an_always_on_model() -> None:
    with FakeAnthropicServer(ScriptedBrain(["ok"]), models=MODELS) as fake, pytest.raises(
        anthropic.BadRequestError, match=r'"thinking\.type\.disabled" is not supported'
    ):
        _client(fake).messages.create(model="claude-next-9", max_tokens=1024,
                                      messages=[{"role": "user", "content": "q"}], thinking={"type": "disabled"})
