"""SessionContext.with_session drops the messages a moved boundary leaves behind (domain/context/session_context.py):
checked at C speed first, since a turn calls it with the boundary unchanged; the messages kept are the same either
way."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from domain.context.session_context import SessionContext
from domain.models import Agent, Message, MessageType, Session
from domain.settings import ContextSettings


def ctx(seqs: list[int], boundary: int | None) -> SessionContext:
    now = datetime(2026, 11, 27, tzinfo=UTC)
    session = Session(id="s1", title="t", current_agent_id="a", created_at=now, updated_at=now,
                      compacted_summary="so far" if boundary is not None else None, compact_boundary=boundary)
    messages = tuple(Message(id=f"m{seq}", session_id="s1", type=MessageType.USER, content="hi", seq=seq)
                     for seq in seqs)
    return SessionContext(session, Agent("a", "A"), ContextSettings(), None, (), None, None, messages)


@pytest.mark.parametrize(("seqs", "before", "after", "kept"), [
    ([5, 6, 7, 8], 5, 5, [5, 6, 7, 8]),  # the boundary unchanged: every message stays
    ([5, 6, 7, 8], 5, 7, [7, 8]),  # moved forward: those behind it go
    ([5, 6, 7, 8], None, 9, []),
    ([3, 9, 4, 10], 3, 4, [9, 4, 10]),  # order as it is, whatever it is
    ([1, 2], None, None, [1, 2]),
])
def test_the_messages_behind_the_boundary_go_and_the_rest_stay_in_order(
    seqs: list[int], before: int | None, after: int | None, kept: list[int]
) -> None:
    context = ctx(seqs, before)
    moved = replace(context.session, compacted_summary="so far" if after is not None else None,
                    compact_boundary=after)
    assert [m.seq for m in context.with_session(moved).messages] == kept
    assert context.with_session(moved).session is moved
