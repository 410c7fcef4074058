"""Property-based tests of the context engine's invariants over random conversations."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.context.alternation import Normalizer, is_synthetic, normalize
from domain.context.builder import BuiltRequest, CompactAwareMessageBuilder, shrink_turn
from domain.context.estimator import TokenEstimator
from domain.context.pruner import ToolResultPruner
from domain.models import Message, MessageType
from domain.settings import ContextSettings
from tests.domain.conversation import Conversation
from tests.domain.engine_setup import SONNET, Engine
from tests.domain.invariants import assert_valid_request
from tests.fakes import make_session

EST = TokenEstimator()
BUILDER = CompactAwareMessageBuilder()
TEXT = st.text(alphabet="abc xyz.{}日本", min_size=0, max_size=40)

STEP = st.one_of(
    st.tuples(st.just("user"), TEXT),
    st.tuples(st.just("assistant"), TEXT),
    st.tuples(st.just("tool"), st.integers(0, 9_000)),
    st.tuples(st.just("image_tool"), st.integers(0, 9_000)),
    st.tuples(st.just("orphan_call"), st.just(0)),
    st.tuples(st.just("orphan_result"), st.just(0)),
    st.tuples(st.just("error"), st.just(0)),
)


def conversation(steps: list[tuple[str, object]]) -> list[Message]:
    c = Conversation()
    for kind, arg in steps:
        if kind == "user":
            c.user(str(arg))
        elif kind == "assistant":
            c.assistant(str(arg))
        elif kind in ("tool", "image_tool"):
            c.tool_round("r" * int(arg), has_image=kind == "image_tool")  # type: ignore[call-overload]
        elif kind == "orphan_call":
            c.tool_round("lost")
            c.messages.pop()
        elif kind == "orphan_result":
            c.tool_round("stray")
            c.messages.pop(-2)
        else:
            c.error()
    return [replace(m, seq=i + 1) for i, m in enumerate(c.messages)]


def text_messages(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.type in (MessageType.USER, MessageType.AI_RESPONSE) and not is_synthetic(m)]


@given(st.lists(STEP, max_size=30), st.integers(0, 30))
def test_built_requests_alternate_keep_tool_pairs_and_never_change_text(steps: list, boundary: int) -> None:
    messages = conversation(steps)
    session = make_session(compacted_summary="S", compact_boundary=boundary) if boundary else make_session()
    built = BUILDER.build(session, [m for m in messages if not boundary or m.seq >= boundary], None)
    assert_valid_request(built.messages)
    by_id = {m.id: m for m in messages}
    for m in built.messages:
        if not is_synthetic(m):
            assert by_id[m.id] == m, "a sent message differs from the stored one"
    sent_ids = {m.id for m in built.messages}
    for m in text_messages(messages):
        if (not boundary or m.seq >= boundary) and (m.type is MessageType.USER or m.content.strip()):
            assert m.id in sent_ids, "user or assistant text was dropped"


@given(st.lists(STEP, max_size=30), st.integers(0, 30_000))
def test_pruning_only_ever_changes_tool_results_without_images(steps: list, min_clear: int) -> None:
    messages = BUILDER.build(make_session(), conversation(steps), None).messages
    pruned = ToolResultPruner(ContextSettings(prune_min_clear_chars=min_clear)).prune("s1", messages)
    assert len(pruned) == len(messages)
    for before, after in zip(messages, pruned, strict=True):
        if before.type is not MessageType.TOOL_RESULT or before.has_image:
            assert after == before
        else:
            assert replace(after, tool_output=before.tool_output, content=before.content) == before
    assert_valid_request(pruned)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(STEP, max_size=30), st.integers(1, 6_000))
def test_fitted_request_is_within_budget_whenever_any_valid_request_fits(steps: list, budget: int) -> None:
    messages = BUILDER.build(make_session(), conversation(steps), "system").messages
    request = BuiltRequest("system", messages)
    fitted = BUILDER.fit_to_budget(request, budget, EST)
    assert_valid_request(fitted.messages)
    if not messages:
        return
    last_turn_start = max(i for i, m in enumerate(messages) if m.type is MessageType.USER)
    smallest = shrink_turn(messages[last_turn_start:])[-1]
    if EST.estimate_request("system", smallest) <= budget:
        assert EST.estimate_request("system", fitted.messages) <= budget
    assert messages[last_turn_start].id in {m.id for m in fitted.messages}, "the newest user message was dropped"


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=40)
@given(st.lists(st.integers(10, 600), min_size=4, max_size=60))
def test_after_a_compaction_the_summary_is_present_in_the_request(sizes: list[int]) -> None:
    engine = Engine()
    for i, words in enumerate(sizes):
        engine.say(MessageType.USER if i % 2 == 0 else MessageType.AI_RESPONSE, f"m{i} " + "word " * words)
    result = asyncio.run(engine.compact("s1", provider_id="anthropic", model_id=SONNET.id, force=True))
    session = engine.sessions.get("s1")
    assert session is not None
    if result.did_compact:
        assert session.compacted_summary and session.compact_boundary is not None
        built = BUILDER.build(session, engine.messages.since("s1", session.compact_boundary), "P")
        assert built.system_prompt is not None and session.compacted_summary in built.system_prompt
        assert_valid_request(built.messages)
        assert built.messages and built.messages[0].type is MessageType.USER
    else:
        assert session.compacted_summary is None


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12_000), st.booleans()), min_size=1, max_size=25))
def test_pruned_prefix_only_changes_in_batches_that_free_at_least_the_minimum(rounds: list[tuple[int, bool]]) -> None:
    minimum = 20_000
    pruner = ToolResultPruner(ContextSettings(prune_min_clear_chars=minimum))
    c = Conversation()
    c.user("start")
    previous: list[Message] = []
    for size, new_user_turn in rounds:
        if new_user_turn:
            c.assistant("ok")
            c.user("next")
        c.tool_round("x" * size)
        current = pruner.prune("s1", c.messages)
        if current[: len(previous)] != previous:
            freed = sum(len(m.tool_output or "") for m in previous) - sum(
                len(m.tool_output or "") for m in current[: len(previous)]
            )
            assert freed >= minimum, "the prefix changed for a small gain"
        previous = current


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(STEP, max_size=30), st.lists(st.integers(0, 30), min_size=1, max_size=6),
       st.lists(STEP, max_size=10))
def test_the_resuming_normalizer_gives_what_normalize_gives(
    steps: list[tuple[str, object]], cuts: list[int], other: list[tuple[str, object]]
) -> None:
    """A list growing at the end (a turn's requests), cut back, or replaced by another conversation, and lists whose
    messages changed before the end: the Normalizer resumes only where that gives normalize()'s result."""
    messages = conversation(steps)
    normalizer = Normalizer()
    for cut in cuts:
        grown = messages[:cut]
        assert normalizer(grown) == normalize(grown)
        assert normalizer(grown + messages[cut:]) == normalize(messages)
    elsewhere = conversation(other)
    assert normalizer(elsewhere) == normalize(elsewhere)
    if messages:
        normalizer(messages)
        edited = [replace(messages[0], type=MessageType.ERROR), *messages[1:]]  # the first message changed
        assert normalizer(edited) == normalize(edited)
