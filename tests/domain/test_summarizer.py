"""AdapterSummarizer: the Summarizer port over a provider's adapter, with the key from the keychain."""

from __future__ import annotations

import pytest

from domain.errors import NotFound, RateLimited
from domain.services.adapters import ProviderAdapters
from domain.services.summarizer import AdapterSummarizer
from tests.fakes_turn import make_world


async def test_summarize_calls_the_providers_adapter_with_its_key_and_limits() -> None:
    world = make_world()
    world.adapter("openai").completions.append("Goal: test.")
    summarizer = AdapterSummarizer(ProviderAdapters(world.providers, world.keys, world.adapters))
    text = await summarizer.summarize(provider_id="openai", model_id="gpt-small", system="Summarize.",
                                      prompt="Transcript", max_tokens=1_500)
    assert text == "Goal: test."
    assert world.adapter("openai").completion_prompts == [("gpt-small", "Transcript", "Summarize.", 1_500)]
    assert world.adapters.keys_seen == [("openai", "sk-openai-test")]


async def test_summarize_passes_provider_errors_through() -> None:
    world = make_world()
    world.adapter().completions.append(RateLimited())
    summarizer = AdapterSummarizer(ProviderAdapters(world.providers, world.keys, world.adapters))
    with pytest.raises(RateLimited):
        await summarizer.summarize(provider_id="anthropic", model_id="claude-haiku", system="s", prompt="p",
                                   max_tokens=10)


async def test_summarize_with_an_unknown_provider_is_not_found() -> None:
    world = make_world()
    summarizer = AdapterSummarizer(ProviderAdapters(world.providers, world.keys, world.adapters))
    with pytest.raises(NotFound):
        await summarizer.summarize(provider_id="ghost", model_id="m", system="s", prompt="p", max_tokens=10)
