"""Properties of any turn, whatever the model does: the user's text is kept and the history stays valid."""

from __future__ import annotations

import asyncio
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.errors import ContextOverflow, NetworkError
from domain.events import ChatError, ResponseComplete, TextDelta, ThinkingDelta
from domain.models import MessageType
from domain.settings import ContextSettings
from tests.fakes_turn import Script, ScriptStep, make_world, reply, tool_round

round_kinds = st.sampled_from(["text", "tools", "midstream_failure", "failure_at_start", "overflow"])


def script_for(kind: str, index: int, calls: int) -> Script:
    if kind == "text":
        return reply(f"answer {index}")
    if kind == "tools":
        return tool_round(*((f"r{index}c{k}", "echo", {"n": k}) for k in range(calls)), text=f"calling {calls}")
    if kind == "midstream_failure":
        steps: list[ScriptStep] = [ThinkingDelta("hmm"), TextDelta(f"partial {index}"), NetworkError("reset")]
        return steps
    if kind == "failure_at_start":
        return NetworkError("down")
    return ContextOverflow(tokens=50_000, limit=40_000)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kinds=st.lists(round_kinds, min_size=1, max_size=6), calls=st.integers(min_value=1, max_value=3),
       text=st.text(min_size=1, max_size=200).filter(lambda t: t.strip() != ""))
def test_any_turn_keeps_the_users_text_and_leaves_every_tool_call_answered(
    kinds: list[str], calls: int, text: str
) -> None:
    world = make_world(settings=ContextSettings(max_tool_rounds=4), handlers={"echo": lambda a, c: "ok"})
    world.summarizer.default = "Summary."
    world.adapter().scripts.extend(script_for(kind, i, calls) for i, kind in enumerate(kinds))
    world.adapter().scripts.extend(reply("fallback answer") for _ in range(4))

    events = asyncio.run(world.turn(text))

    stored = world.stored()
    assert [m.content for m in stored if m.type is MessageType.USER] == [text]
    call_ids = [m.tool_call_id for m in stored if m.type is MessageType.TOOL_CALL]
    result_ids = Counter(m.tool_call_id for m in stored if m.type is MessageType.TOOL_RESULT)
    assert all(result_ids[c] == 1 for c in call_ids) and set(result_ids) == set(call_ids)
    for call in (m for m in stored if m.type is MessageType.TOOL_CALL):
        result = next(m for m in stored if m.type is MessageType.TOOL_RESULT and m.tool_call_id == call.tool_call_id)
        assert result.seq > call.seq
    errors = [e for e in events if isinstance(e, ChatError)]
    completes = [e for e in events if isinstance(e, ResponseComplete)]
    assert len(errors) + len(completes) == 1  # a turn ends exactly one way
    if errors:
        assert events[-1] is errors[0]
    incomplete = [m for m in stored if m.incomplete]
    assert all(m.type is MessageType.AI_RESPONSE for m in incomplete) and len(incomplete) <= 1
    assert world.sessions.get("s1").message_count == len(stored)
