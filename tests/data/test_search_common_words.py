"""A word in very many messages is ranked among its newest matches only (exact ranking of all of them is slow)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from data.db.sessions import SqlSessionRepository
from data.storage import Storage
from domain.models import Message, MessageType, Session

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_a_common_word_is_ranked_among_its_newest_matches_and_a_rare_one_among_all(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path)
    try:
        for i in range(12):
            storage.sessions.create(Session(f"s{i}", f"Chat {i}", None, T0, T0))
            text = "weather report " * (30 if i < 3 else 1) + ("kingfisher" if i == 0 else "")
            storage.messages.add(Message(f"m{i}", f"s{i}", MessageType.USER, text, created_at=T0 + timedelta(i)))
        capped = SqlSessionRepository(storage._db, ranked_matches=4)
        every = SqlSessionRepository(storage._db, ranked_matches=1_000)
        # s0..s2 repeat the word most (best bm25) but are the oldest: with the cap, only the 5 newest are ranked
        assert {h.session_id for h in every.search("weather", limit=3)} == {"s0", "s1", "s2"}
        capped_hits = [h.session_id for h in capped.search("weather", limit=20)]
        assert capped_hits and set(capped_hits) <= {f"s{i}" for i in range(7, 12)}
        assert [h.session_id for h in capped.search("kingfisher")] == ["s0"]  # a rare word: every match ranked
    finally:
        storage.close()
