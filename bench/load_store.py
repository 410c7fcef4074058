"""The load benchmark's store: 1,000 sessions and 200,000 messages (one of 20,000), built once and cached.

The schema is the one the migrations create (`Storage.open`); the rows go in through SQLAlchemy Core bulk inserts
on the mapped tables, so the FTS triggers index them exactly as the app's own inserts do. No session is compacted:
the big one sends its whole history, the worst case for the context gauge and the usage shown on opening it.
"""

from __future__ import annotations

import itertools
import json
import random
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

SESSIONS = 1_000
MESSAGES = 200_000
BIG = 20_000
RARE_WORD = "orchidquartz"  # planted in RARE_HITS messages of RARE_HITS different sessions
RARE_HITS = 40
FORMAT = 4  # bump when the generated data changes: a cached store of another format is rebuilt
MODEL = ("anthropic", "claude-sonnet-4-5-20250929")
_CODE = (
    "```python\ndef fit(messages, budget):\n    kept = []\n    for m in reversed(messages):\n"
    "        budget -= cost(m)\n        if budget < 0:\n            break\n        kept.append(m)\n"
    "    return kept[::-1]\n```"
)


@dataclass(frozen=True)
class LoadStore:
    """Where the cached store is and what is in it."""

    home: Path
    big_id: str
    ordinary_ids: tuple[str, ...]  # a few ordinary sessions (80 to 400 messages), for the open measurements
    common_word: str  # in most messages
    middle_word: str  # in about one message in a hundred
    rare_word: str = RARE_WORD


def _vocabulary(rng: random.Random, size: int = 6_000) -> list[str]:
    """Pronounceable made-up words, most frequent first (drawn with Zipf weights)."""
    consonants, vowels = "bcdfghklmnprstvz", "aeiou"
    words: set[str] = set()
    while len(words) < size:
        syllables = rng.randint(1, 4)
        words.add("".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(syllables))
                  + (rng.choice(consonants) if rng.random() < 0.5 else ""))
    ordered = sorted(words)
    rng.shuffle(ordered)
    return ordered


class _Text:
    """Deterministic prose, Markdown replies and tool outputs over a Zipf-weighted vocabulary."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.words = _vocabulary(rng)
        self._cum = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(len(self.words))))

    def prose(self, chars: int) -> str:
        out: list[str] = []
        size = 0
        while size < chars:
            sentence = " ".join(self.rng.choices(self.words, cum_weights=self._cum, k=self.rng.randint(6, 16)))
            out.append(sentence.capitalize() + ".")
            size += len(sentence) + 2
        return " ".join(out)

    def reply(self) -> str:
        rng = self.rng
        parts = [self.prose(rng.randint(150, 600))]
        if rng.random() < 0.3:
            parts.append("## " + self.prose(20).rstrip("."))
            parts.append("\n".join(f"- **{self.prose(8).rstrip('.')}**: {self.prose(60)}" for _ in range(3)))
        if rng.random() < 0.25:
            parts.append(_CODE)
        if rng.random() < 0.2:
            parts.append(f"The `{self.words[rng.randrange(200)]}` step took {rng.randint(2, 900)} ms. "
                         + self.prose(rng.randint(80, 300)))
        return "\n\n".join(parts)

    def tool_output(self) -> str:
        rows = [{"id": i, "name": self.prose(12).rstrip("."), "score": round(self.rng.random(), 3)}
                for i in range(self.rng.randint(8, 30))]
        return json.dumps({"status": "ok", "items": rows}, indent=1)


def _session_sizes(rng: random.Random) -> list[int]:
    """BIG for the first session, 80..400 for the others, summing to MESSAGES."""
    others = SESSIONS - 1
    sizes = [rng.randint(80, 280) for _ in range(others)]
    rest = MESSAGES - BIG - sum(sizes)
    for i in itertools.cycle(range(others)):
        if rest == 0:
            break
        step = 1 if rest > 0 else -1
        if 80 <= sizes[i] + step <= 400:
            sizes[i] += step
            rest -= step
    return [BIG, *sizes]


def _messages(text: _Text, session_id: str, count: int, start: datetime, rare: set[int]) -> Iterator[dict[str, Any]]:
    """`count` message rows of one session: user turns, Markdown replies, a tool round every 8th turn."""
    rng = text.rng
    seq = 0
    turn = 0
    parent: str | None = None  # one chain: each message answers the one before it (NULL only for the first)
    base: dict[str, Any] = {"thinking_content": None, "tool_call_id": None, "tool_name": None, "tool_input": None,
                            "tool_output": None, "tool_status": None, "model_id": None, "provider_id": None,
                            "input_tokens": None, "output_tokens": None, "pinned": False, "incomplete": False,
                            "has_image": False, "tool_output_original_chars": None, "active": True,
                            "session_id": session_id}

    def row(kind: str, content: str, **fields: Any) -> dict[str, Any]:
        nonlocal seq, parent
        seq += 1
        at = start + timedelta(seconds=20 * seq)
        message_id = uuid.UUID(int=rng.getrandbits(128)).hex
        made = {**base, "id": message_id, "parent_id": parent, "type": kind, "content": content,
                "created_at": at, "seq": seq, **fields}
        parent = message_id
        return made

    while seq < count:
        turn += 1
        question = text.prose(rng.randint(40, 300)) + "?"
        if turn in rare:
            question += f" Remember the code name {RARE_WORD}."
        yield row("user", question)
        if seq < count - 3 and turn % 8 == 0:
            call = f"call_{rng.getrandbits(48):012x}"
            yield row("tool_call", "", tool_call_id=call, tool_name="http_request", provider_id=MODEL[0],
                      model_id=MODEL[1], tool_input=json.dumps({"url": f"https://example.com/items/{turn}"}))
            output = text.tool_output()
            yield row("tool_result", "", tool_call_id=call, tool_name="http_request", tool_output=output,
                      tool_status="success", tool_output_original_chars=len(output))
        if seq < count:
            yield row("ai_response", text.reply(), provider_id=MODEL[0], model_id=MODEL[1],
                      input_tokens=rng.randint(500, 60_000), output_tokens=rng.randint(50, 900))


def insert_session(engine: Any, agent_id: str, session_id: str, title: str, rows: list[dict[str, Any]]) -> None:
    """One session and its generated message rows (from `_messages`), in one transaction, by bulk inserts."""
    from sqlalchemy import Table, insert

    from data.db.rows import MessageRow, SessionRow

    sessions_t, messages_t = cast(Table, SessionRow.__table__), cast(Table, MessageRow.__table__)
    last_text = next((r["content"] for r in reversed(rows) if r["type"] in ("user", "ai_response")), "")
    start = rows[0]["created_at"] - timedelta(seconds=20) if rows else datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
    with engine.begin() as conn:
        conn.execute(insert(sessions_t), [{
            "id": session_id, "title": title,
            "current_agent_id": agent_id, "message_count": len(rows), "is_active": True, "deleted_at": None,
            "last_message_preview": " ".join(last_text.split())[:120] or None, "created_at": start,
            "updated_at": rows[-1]["created_at"] if rows else start, "compacted_summary": None,
            "compact_boundary": None, "total_input_tokens": sum(r["input_tokens"] or 0 for r in rows),
            "total_output_tokens": sum(r["output_tokens"] or 0 for r in rows), "total_cache_read_tokens": 0,
            "flushed_in_compaction_cycle": False, "compaction_count": 0,
            "current_provider_id": MODEL[0], "current_model_id": MODEL[1],
        }])
        for at in range(0, len(rows), 2_000):
            conn.execute(insert(messages_t), rows[at:at + 2_000])


def build(home: Path, seed: int = 5) -> LoadStore:
    """Creates the store under `home` (which must be empty) and returns what is in it."""
    from data.storage import Storage

    rng = random.Random(seed)
    text = _Text(rng)
    sizes = _session_sizes(rng)
    ids = [uuid.UUID(int=rng.getrandbits(128)).hex for _ in sizes]
    rare_sessions = set(rng.sample(range(1, SESSIONS), RARE_HITS))
    storage = Storage.open(home)
    try:
        agent = storage.agents.default()
        engine = storage._db.engine  # bench code: bulk inserts beside the repositories
        first = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
        for n, (session_id, size) in enumerate(zip(ids, sizes, strict=True)):
            start = first + timedelta(hours=8 * n)
            rare = {rng.randint(1, size // 4)} if n in rare_sessions else set()  # a turn number
            rows = list(_messages(text, session_id, size, start, rare))
            title = "A long-running project log" if n == 0 else text.prose(30).rstrip(".")[:60]
            insert_session(engine, agent.id, session_id, title, rows)
        storage.search_backlog.index_all()  # as the app keeps a store: its search backlog taken in batches (0038)
    finally:
        storage.close()
    ordinary = tuple(ids[i] for i in (1, 250, 500, 750))
    return LoadStore(home, ids[0], ordinary, common_word=text.words[0], middle_word=text.words[400])


def cached_store(folder: Path) -> LoadStore:
    """The store under folder/store, built on the first call (a few minutes) and reused after."""
    marker = folder / "store.json"
    if marker.exists():
        saved = json.loads(marker.read_text())
        if saved.get("format") == FORMAT:
            saved.pop("format")
            return LoadStore(home=Path(saved.pop("home")), ordinary_ids=tuple(saved.pop("ordinary_ids")), **saved)
    home = folder / "store"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    store = build(home)
    marker.write_text(json.dumps({**asdict(store), "home": str(home), "format": FORMAT}))
    return store


def working_copy(store: LoadStore, target: Path) -> LoadStore:
    """A copy of the store's files in `target` (measurements never change the cached one)."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for path in store.home.iterdir():
        if path.name.startswith("palimpsest.db") and not path.name.endswith((".bak", ".lock")):
            shutil.copy2(path, target / path.name)
    from data.storage import Storage

    Storage.open(target).close()  # a store cached by an older Palimpsest is migrated now, not in a measurement
    for backup in target.glob("palimpsest.db.*.bak"):
        backup.unlink()
    return LoadStore(target, store.big_id, store.ordinary_ids, store.common_word, store.middle_word, store.rare_word)
