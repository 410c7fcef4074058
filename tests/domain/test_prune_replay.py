"""The pruner carries its latest replay on (domain/context/prune_replay.py): a conversation whose tool results grow, a
branch that drops some, changed settings and a shared pruner all get exactly the plan a fresh replay gives, and the
sizes of results already replayed are not computed again."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

import domain.context.pruner as pruner_module
from domain.context.pruner import ToolResultPruner, pruning_plan
from domain.models import Message
from domain.settings import ContextSettings
from tests.domain.conversation import Conversation

SETTINGS = ContextSettings(prune_min_clear_chars=4_000)


def grown(seed: int, rounds: int) -> list[list[Message]]:
    """The message lists of one conversation after each of its turns (the same objects, as the store keeps them)."""
    rng = random.Random(seed)
    c = Conversation()
    states = []
    for i in range(rounds):
        c.user(f"question {i}")
        if rng.random() < 0.6:
            c.tool_round("y" * rng.choice([200, 3_000, 9_000, 40_000]), text=f"looking {i}")
        c.assistant(f"answer {i}")
        states.append(list(c.messages))
    return states


def fresh(messages: list[Message], s: ContextSettings) -> list[Message]:
    """What a pruner that never planned before returns."""
    return ToolResultPruner(s).prune("s1", messages, s)


@pytest.mark.parametrize("seed", range(4))
def test_a_growing_conversation_gets_the_plan_a_fresh_replay_gives_every_turn(seed: int) -> None:
    pruner = ToolResultPruner(SETTINGS)
    for messages in grown(seed, 40):
        assert pruner.prune("s1", messages) == fresh(messages, SETTINGS)
        assert pruner.prune("s1", messages) == fresh(messages, SETTINGS)  # asked again within the turn


def test_a_branch_with_fewer_results_settings_changed_and_another_conversation_are_each_replayed_afresh() -> None:
    pruner = ToolResultPruner(SETTINGS)
    states = grown(7, 40)
    other = grown(8, 30)[-1]
    tighter = replace(SETTINGS, keep_last_tool_results=1, hard_clear_after=3, prune_min_clear_chars=0)
    edited = [replace(m, tool_output="z" * 50_000) if m.tool_output else m for m in states[-1]]  # copies: not the same
    asked = [replace(m, content="asked otherwise") if m.content.startswith("question 3") else m for m in states[-1]]
    for messages, s in [(states[-1], SETTINGS), (states[20], SETTINGS), (states[-1], tighter), (other, SETTINGS),
                        (states[-1], SETTINGS), (edited, SETTINGS), (states[30], SETTINGS), (states[-1], SETTINGS),
                        (asked, SETTINGS), (states[-1], SETTINGS)]:  # the same results, another message before them
        assert pruner.prune("s1", messages, s) == fresh(messages, s)
        assert pruning_plan(messages, s) == pruner._plan(messages, s)


def test_results_already_replayed_are_not_measured_again(monkeypatch: pytest.MonkeyPatch) -> None:
    measured: list[str] = []
    size = pruner_module._size

    def counted(text: str, act: object, s: ContextSettings, message_id: str) -> int:
        measured.append(message_id)
        return size(text, act, s, message_id)  # type: ignore[arg-type]

    monkeypatch.setattr(pruner_module, "_size", counted)
    states = grown(3, 60)
    pruner = ToolResultPruner(SETTINGS)
    pruner.prune("s1", states[-2])
    first = len(measured)  # the first plan replays every result
    measured.clear()
    pruner.prune("s1", states[-2])
    assert measured == []  # the same results again: the plan as it was
    c = Conversation()
    c.messages, c._calls = list(states[-2]), 1_000
    c.tool_round("w" * 20_000)
    got, carried = pruner.prune("s1", c.messages), len(measured)
    assert 0 < carried <= 4 < first  # one more result: only the results it ages are measured
    assert got == fresh(c.messages, SETTINGS)
