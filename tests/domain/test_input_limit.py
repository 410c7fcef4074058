"""A separate input limit (GPT-5: 272K of a 400K window) learned from the provider's overflow body: the window
stays, the limit is recorded as the input limit, and the turn is retried against it."""

from __future__ import annotations

from domain.errors import ContextOverflow
from domain.events import ChatError, TextDelta
from domain.models import WindowSource
from tests.fakes_turn import make_world, reply

GPT5_BODY = ContextOverflow(tokens=289_650, limit=272_000, input_limit=True,
                            stated="289,650 input tokens > the 272,000-token input limit")


async def test_an_input_limit_overflow_teaches_the_input_limit_and_keeps_the_window():
    world = make_world(window=400_000, summaries=("Summary so far.",))
    world.adapter().scripts.extend([GPT5_BODY, reply("Fine now.", input_tokens=120)])
    events = await world.turn("Hello again")
    assert not [e for e in events if isinstance(e, ChatError)]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Fine now."
    model = world.models.get("anthropic", "claude-big")
    assert (model.context_window_size, model.input_limit) == (400_000, 272_000)
    assert model.window_source is not WindowSource.LEARNED  # the window itself was not what the provider named
    status = world.status("s1")
    assert status.window == 400_000 and status.input_limit == 272_000
    assert status.threshold == int(272_000 * 0.85)  # compaction is planned against the input limit
