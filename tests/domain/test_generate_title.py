"""GenerateTitleUseCase: a short, clean title from the first exchange; failures leave the title alone."""

from __future__ import annotations

import pytest

from domain.errors import NotFound, ProviderUnavailable
from domain.services.adapters import ProviderAdapters
from domain.usecases.generate_title import GenerateTitleUseCase, clean_title
from tests.fakes_turn import TurnWorld, make_world


def title_of(world: TurnWorld) -> GenerateTitleUseCase:
    return GenerateTitleUseCase(world.sessions, ProviderAdapters(world.providers, world.keys, world.adapters))


async def ask(world: TurnWorld, **kw: str) -> str | None:
    return await title_of(world)("s1", provider_id=kw.get("provider", "anthropic"), model_id="claude-haiku",
                                 user_text="How do I bake sourdough?", reply_text="Start with a levain.")


async def test_title_is_stored_on_the_session_and_returned() -> None:
    world = make_world()
    world.adapter().completions.append("Baking Sourdough Bread")
    assert await ask(world) == "Baking Sourdough Bread"
    assert world.sessions.get("s1").title == "Baking Sourdough Bread"
    model, prompt, system, max_tokens = world.adapter().completion_prompts[0]
    assert model == "claude-haiku" and "How do I bake sourdough?" in prompt and "Start with a levain." in prompt
    assert system and max_tokens <= 64


async def test_provider_failure_returns_none_and_keeps_the_old_title() -> None:
    world = make_world()
    world.adapter().completions.append(ProviderUnavailable("overloaded"))
    assert await ask(world) is None
    assert world.sessions.get("s1").title == "Test"


async def test_a_blank_answer_keeps_the_old_title() -> None:
    world = make_world()
    world.adapter().completions.append("  \n ")
    assert await ask(world) is None
    assert world.sessions.get("s1").title == "Test"


async def test_unknown_provider_is_not_found() -> None:
    world = make_world()
    with pytest.raises(NotFound):
        await ask(world, provider="nowhere")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('"Planning a Trip."', "Planning a Trip"),
        ("Title: Rust lifetimes", "Rust lifetimes"),
        ("\n\n**Kyoto itinerary**\nextra line", "Kyoto itinerary"),
        ("「京都旅行」", "「京都旅行」"),
        ("", None),
        ('""', None),
    ],
)
def test_clean_title_keeps_the_first_line_without_quotes_labels_or_trailing_dots(
    raw: str, expected: str | None
) -> None:
    assert clean_title(raw) == expected


def test_clean_title_caps_long_titles() -> None:
    title = clean_title("word " * 40)
    assert title is not None and len(title) <= 60 and title.endswith("…")
