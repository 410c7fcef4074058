"""Optional semantic search over document passages: the embedding port, the stored vectors' port, and the blend of
BM25 with cosine similarity (off by default: without it, BM25 alone and nothing leaves the machine)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from domain.documents import Passage
from domain.models import AgentId, Provider, SessionId

SEMANTIC_WEIGHT = 0.5  # the share of the cosine similarity in a passage's blended score (the rest: BM25)
EMBED_MAX_CHARS = 6_000  # a passage is embedded from at most this many characters (under every model's input limit)
EMBED_BATCH_CHARS = 400_000  # characters per embedding request at most (OpenAI sums 300,000 tokens per request)
CANDIDATES = 50  # passages each ranking brings to the blend


@dataclass(frozen=True)
class ScoredPassage:
    """A passage with its row id and one ranking's score (BM25: higher is better here; cosine: -1 to 1)."""

    id: int
    passage: Passage
    score: float


class Embedder(Protocol):
    """A provider's embedding model; `key` names the vectors it makes ("provider/model"), `max_batch` the texts one
    request may carry."""

    key: str
    max_batch: int

    async def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        """One vector per text, in order (`query`: the text is a search, not a passage)."""
        ...


class EmbedderFactory(Protocol):
    """Builds the embedder of a provider's model, with its key and base URL (one SDK per provider type)."""

    def create(self, provider: Provider, api_key: str | None, model: str) -> Embedder: ...


class EmbedderSource(Protocol):
    """The embedder an agent's conversations search with, or None where semantic search is off."""

    def for_agent(self, agent_id: AgentId | None) -> Embedder | None: ...


class PassageVectors(Protocol):
    """The passages a conversation may read, ranked by BM25 or by their stored vectors."""

    def keyword_ranked(self, query: str, session_id: SessionId, agent_id: AgentId | None, *,
                       document: str | None, limit: int) -> Sequence[ScoredPassage]:
        """The best passages by BM25, best first (score: higher is better)."""
        ...

    def unembedded(self, session_id: SessionId, agent_id: AgentId | None, model: str, *, document: str | None,
                   limit: int) -> Sequence[tuple[int, str]]:
        """(id, text) of passages in scope without a vector of that model."""
        ...

    def put_vectors(self, model: str, vectors: Sequence[tuple[int, Sequence[float]]]) -> None:
        """Stores the passages' vectors of that model."""
        ...

    def nearest(self, vector: Sequence[float], session_id: SessionId, agent_id: AgentId | None, model: str, *,
                document: str | None, limit: int) -> Sequence[ScoredPassage]:
        """The passages in scope most similar to the vector (cosine), best first."""
        ...


def _normalized(scores: dict[int, float]) -> dict[int, float]:
    """Scores scaled to 0..1 (min-max); several all equal tell nothing (all 0), a single one is the best (1)."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    span = high - low
    if span <= 0:
        return dict.fromkeys(scores, 1.0 if len(scores) == 1 else 0.0)
    return {key: (value - low) / span for key, value in scores.items()}


def blend(keyword: Sequence[ScoredPassage], semantic: Sequence[ScoredPassage], limit: int,
          weight: float = SEMANTIC_WEIGHT) -> list[Passage]:
    """The passages of both rankings ordered by (1 - weight) * BM25 + weight * cosine, each scaled to 0..1 over the
    candidates; a passage missing from one ranking scores 0 there."""
    passages = {s.id: s.passage for s in (*keyword, *semantic)}
    bm25 = _normalized({s.id: s.score for s in keyword})
    cosine = _normalized({s.id: s.score for s in semantic})
    score = {key: (1 - weight) * bm25.get(key, 0.0) + weight * cosine.get(key, 0.0) for key in passages}
    return [passages[key] for key in sorted(passages, key=lambda k: (-score[k], k))[:limit]]


def batches(rows: Sequence[tuple[int, str]], max_batch: int) -> list[list[tuple[int, str]]]:
    """The rows cut into requests of at most max_batch texts and EMBED_BATCH_CHARS characters, each text cut to
    EMBED_MAX_CHARS."""
    out: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    size = 0
    for key, body in rows:
        piece = body[:EMBED_MAX_CHARS] or " "
        if current and (len(current) >= max_batch or size + len(piece) > EMBED_BATCH_CHARS):
            out.append(current)
            current, size = [], 0
        current.append((key, piece))
        size += len(piece)
    if current:
        out.append(current)
    return out
