"""MessageRepository.add_many: a conversation's messages stored in bulk as adding them one by one stores them."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import text

from data.storage import Storage
from domain.errors import InvalidInput, NotFound
from domain.models import Message, MessageType
from tests.data.conftest import T0, msg, new_session


def _conversation(sid: str) -> list[Message]:
    """Roots, children of earlier messages, an active message in the middle, a tool round (ids prefixed by `sid`)."""
    at = [T0 + timedelta(minutes=i) for i in range(8)]
    return [
        msg(sid + "a", sid, "first question", created_at=at[0], active=False),
        msg(sid + "b", sid, "an answer", type=MessageType.AI_RESPONSE, parent_id=sid + "a", created_at=at[1],
            active=False, input_tokens=12, output_tokens=3),
        msg(sid + "c", sid, "", type=MessageType.TOOL_CALL, parent_id=sid + "b", created_at=at[2], tool_name="t",
            tool_input="{}", active=False),
        msg(sid + "d", sid, "kept on the path", created_at=at[3]),  # no parent: follows the newest active one
        msg(sid + "e", sid, "after it", created_at=at[5]),
        msg(sid + "f", sid, "older time, later row", created_at=at[4], active=False),
        msg(sid + "g", sid, "orchid second root", created_at=at[6], active=False),
    ]


def _stored(storage: Storage, sid: str) -> list[tuple[Any, ...]]:
    rows = storage.messages.snapshot(sid, include_inactive=True)
    return [(m.id, m.seq, m.parent_id and m.parent_id.removeprefix(sid), m.type, m.content, m.active, m.created_at,
             m.input_tokens) for m in rows]


def _session(storage: Storage, session_id: str) -> tuple[Any, ...]:
    s = storage.sessions.get(session_id)
    assert s is not None
    return s.message_count, s.last_message_preview, s.updated_at


@pytest.mark.parametrize("first", [0, 2])  # into an empty session, or after messages already there
@pytest.mark.full_store  # reads through the engine
def test_add_many_stores_what_adding_one_by_one_stores(storage: Storage, first: int) -> None:
    new_session(storage, "one")
    new_session(storage, "many")
    one, many = _conversation("one"), _conversation("many")
    for m in one[:first]:
        storage.messages.add(m)
    for m in many[:first]:
        storage.messages.add(m)
    for m in one[first:]:
        storage.messages.add(m)
    assert storage.messages.add_many(many[first:]) == len(many) - first
    assert [r[1:] for r in _stored(storage, "many")] == [r[1:] for r in _stored(storage, "one")]
    assert _session(storage, "many") == _session(storage, "one")
    hits = storage._db.engine.connect().execute(
        text("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'orchid'")).scalar()
    assert hits == 2  # indexed in both sessions


def test_add_many_refuses_a_parent_of_another_session_or_a_later_one_and_stores_none(storage: Storage) -> None:
    new_session(storage, "s1")
    new_session(storage, "s2")
    storage.messages.add(msg("x", "s2"))
    with pytest.raises(NotFound):
        storage.messages.add_many([msg("a", "s1"), msg("b", "s1", parent_id="x")])
    with pytest.raises(NotFound):
        storage.messages.add_many([msg("a", "s1", parent_id="b"), msg("b", "s1")])
    with pytest.raises(NotFound):
        storage.messages.add_many([msg("a", "nope")])
    assert storage.messages.snapshot("s1", include_inactive=True) == []


def test_add_many_refuses_an_id_taken_and_names_it(storage: Storage) -> None:
    new_session(storage, "s1")
    storage.messages.add(msg("m1"))
    with pytest.raises(InvalidInput, match="'m1'"):
        storage.messages.add_many([msg("m0"), replace(msg("m1"), content="again")])
    assert [m.content for m in storage.messages.snapshot("s1")] == ["hello"]
