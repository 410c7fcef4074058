"""ToolResultPruner: soft-trim and hard-clear old tool results in the request only, in cache-friendly steps."""

from __future__ import annotations

from domain.context.pruner import HARD_CLEAR_TEXT, ToolResultPruner, result_text
from domain.models import MessageType
from domain.settings import ContextSettings
from tests.domain.conversation import Conversation

NO_STEPS = ContextSettings(prune_min_clear_chars=0)


def rounds(n: int, size: int, *, image_at: int | None = None) -> Conversation:
    c = Conversation()
    c.user("Please inspect these files")
    for i in range(n):
        c.tool_round(f"<{i}>" + "x" * size + f"</{i}>", text=f"Reading file {i}", has_image=(i == image_at))
    c.assistant("Done reading.")
    return c


def outputs(messages: list) -> list[str]:
    return [result_text(m) for m in messages if m.type is MessageType.TOOL_RESULT]


def test_pruning_an_empty_list_is_a_no_op() -> None:
    assert ToolResultPruner(NO_STEPS).prune("s1", []) == []


def test_the_last_two_tool_results_are_never_touched() -> None:
    c = rounds(2, 50_000)
    pruned = ToolResultPruner(NO_STEPS).prune("s1", c.messages)
    assert pruned == c.messages


def test_older_large_results_are_soft_trimmed_to_head_and_tail() -> None:
    c = rounds(4, 10_000)
    original = outputs(c.messages)
    after = outputs(ToolResultPruner(NO_STEPS).prune("s1", c.messages))
    assert after[2:] == original[2:]
    for before, trimmed in zip(original[:2], after[:2], strict=True):
        assert trimmed.startswith(before[:1500]) and trimmed.endswith(before[-1500:])
        assert f"--- trimmed (kept 1500 head + 1500 tail of {len(before)} chars) ---" in trimmed
        assert "read_tool_result" in trimmed


def test_small_old_results_are_kept_whole() -> None:
    c = rounds(5, 100)
    assert ToolResultPruner(NO_STEPS).prune("s1", c.messages) == c.messages


def test_results_more_than_six_results_old_are_hard_cleared() -> None:
    c = rounds(9, 500)
    after = outputs(ToolResultPruner(NO_STEPS).prune("s1", c.messages))
    assert all(text.startswith(HARD_CLEAR_TEXT) for text in after[:3])
    assert after[3:] == outputs(c.messages)[3:]


def test_user_and_assistant_text_is_never_modified() -> None:
    c = rounds(9, 20_000)
    pruned = ToolResultPruner(NO_STEPS).prune("s1", c.messages)
    for before, after in zip(c.messages, pruned, strict=True):
        if before.type is not MessageType.TOOL_RESULT:
            assert after == before


def test_results_with_images_are_never_touched() -> None:
    c = rounds(9, 20_000, image_at=0)
    after = outputs(ToolResultPruner(NO_STEPS).prune("s1", c.messages))
    assert after[0] == outputs(c.messages)[0]


def test_stored_messages_are_not_mutated() -> None:
    c = rounds(9, 20_000)
    snapshot = list(c.messages)
    ToolResultPruner(NO_STEPS).prune("s1", c.messages)
    assert c.messages == snapshot


def test_pruning_can_be_disabled() -> None:
    c = rounds(9, 20_000)
    assert ToolResultPruner(ContextSettings(pruning_enabled=False)).prune("s1", c.messages) == c.messages


def test_newly_due_pruning_waits_until_it_frees_enough_so_the_prefix_stays_identical() -> None:
    settings = ContextSettings(prune_min_clear_chars=20_000)
    pruner = ToolResultPruner(settings)
    c = Conversation()
    c.user("go")
    c.tool_round("a" * 5_000)
    c.tool_round("b" * 5_000)
    first = pruner.prune("s1", c.messages)
    c.tool_round("c" * 5_000)  # the first result leaves the protected zone: only ~1,900 chars to gain
    second = pruner.prune("s1", c.messages)
    assert second[: len(first)] == first
    for i in range(6):
        c.tool_round(str(i) * 5_000)
    third = pruner.prune("s1", c.messages)  # now well over 20,000 chars can go: one batch
    assert sum(len(t) for t in outputs(third)) < sum(len(t) for t in outputs(c.messages)) - 20_000


def test_applied_pruning_is_kept_in_later_requests() -> None:
    pruner = ToolResultPruner(ContextSettings(prune_min_clear_chars=10_000))
    c = rounds(4, 20_000)
    first = pruner.prune("s1", c.messages)
    c.user("and one more")
    second = pruner.prune("s1", c.messages)
    assert second[: len(first)] == first


def test_preview_does_not_advance_the_cache_steps() -> None:
    pruner = ToolResultPruner(ContextSettings(prune_min_clear_chars=10_000))
    c = rounds(4, 20_000)
    pruner.preview("s1", c.messages)
    pruner.forget("s1")
    assert pruner.preview("s1", c.messages) == pruner.prune("s1", c.messages)


def test_a_new_pruner_computes_the_request_the_running_one_sends_at_every_step() -> None:
    """The pruning is derived from the messages alone: a restarted process (a new pruner) agrees with the running
    one, which still keeps the prefix byte-identical between batches."""
    running = ToolResultPruner(ContextSettings())
    c = Conversation()
    c.user("Read every log")
    previous: list = []
    changes = 0
    for i in range(40):
        c.tool_round(f"log {i}\n" + f"line {i} of the berth log\n" * (300 + 37 * (i % 5)), text=f"Reading {i}")
        sent = running.prune("s1", c.messages)
        assert ToolResultPruner(ContextSettings()).prune("s1", c.messages) == sent, f"step {i}"
        changes += sent[: len(previous)] != previous
        previous = sent
    freed = sum(map(len, outputs(c.messages))) - sum(map(len, outputs(previous)))
    assert 0 < changes <= freed // ContextSettings().prune_min_clear_chars  # batches, not a change per step
