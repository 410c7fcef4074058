"""copied(): the same value dataclasses.replace gives, without running __init__ again, and replace itself for
classes whose instances are more than their fields."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.context.frozen_copy import copied
from domain.models import Message, MessageType


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10**6), st.text(max_size=40), st.none() | st.text(min_size=1, max_size=12), st.booleans())
def test_a_message_copied_equals_the_message_replaced(seq: int, content: str, parent: str | None,
                                                    pinned: bool) -> None:
    message = Message(id="m1", session_id="s", type=MessageType.TOOL_RESULT, content="old", seq=3,
                      tool_output="out", created_at=datetime(2026, 1, 2, tzinfo=UTC))
    changes: dict[str, Any] = {"seq": seq, "content": content, "parent_id": parent, "pinned": pinned}
    made = copied(message, **changes)
    expected = replace(message, **changes)
    assert made == expected and hash(made) == hash(expected) and made is not message
    assert vars(made) == vars(expected) and type(made) is Message
    assert message.seq == 3 and message.content == "old"  # the original untouched
    with pytest.raises(AttributeError):
        made.seq = 1  # type: ignore[misc]  # still frozen


def test_an_unknown_field_is_refused_as_replace_refuses_it() -> None:
    message = Message(id="m1", session_id="s", type=MessageType.USER, content="hi", seq=1)
    with pytest.raises(TypeError):
        copied(message, colour="blue")


@dataclass(frozen=True)
class _Checked:
    n: int
    doubled: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "doubled", self.n * 2)


@dataclass(frozen=True)
class _Cached:
    n: int

    @functools.cached_property
    def squared(self) -> int:
        return self.n * self.n


@dataclass(frozen=True, slots=True)
class _Slotted:
    n: int


def test_classes_that_are_more_than_their_fields_go_through_replace() -> None:
    assert copied(_Checked(2), n=5).doubled == 10  # __post_init__ ran again
    cached = _Cached(3)
    assert cached.squared == 9
    assert copied(cached, n=4).squared == 16  # the cached value of the original not carried over
    assert copied(_Slotted(1), n=2) == _Slotted(2)
