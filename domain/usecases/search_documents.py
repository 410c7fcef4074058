"""SearchDocuments: a conversation's passages for a query, by BM25 alone, or blended with the cosine similarity of
their embeddings where the agent's semantic search is on (passages embedded once, by the first search needing them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from domain.documents import DocumentIndex, Passage
from domain.errors import PalimpsestError
from domain.models import AgentId, SessionId
from domain.semantic import CANDIDATES, Embedder, EmbedderSource, PassageVectors, batches, blend

MAX_EMBEDDED_PER_SEARCH = 50_000  # passages one search embeds at most (the rest on the next one)


@dataclass(frozen=True)
class SearchResult:
    """The passages found, best first; whether the ranking was semantic; what stopped it being so (the user's to act
    on: no key, an unknown model), else None."""

    passages: Sequence[Passage]
    semantic: bool = False
    problem: str | None = None


class SearchDocuments:
    """Runs search_documents: BM25, and where an embedder is set for the agent, BM25 mixed with cosine similarity."""

    def __init__(self, index: DocumentIndex, vectors: PassageVectors | None = None,
                 embedders: EmbedderSource | None = None) -> None:
        self._index = index
        self._vectors = vectors
        self._embedders = embedders

    async def __call__(self, query: str, session_id: SessionId, agent_id: AgentId | None, *,
                       document: str | None = None, limit: int = 8,
                       progress: Callable[[int, int], None] | None = None) -> SearchResult:
        """The passages found; `progress(done, total)` follows the passages embedded, when some are."""
        vectors = self._vectors
        try:
            embedder = self._embedders.for_agent(agent_id) if self._embedders is not None else None
        except PalimpsestError as err:
            return SearchResult(self._index.search(query, session_id, agent_id, document=document, limit=limit),
                                problem=err.message)
        if embedder is None or vectors is None:
            return SearchResult(self._index.search(query, session_id, agent_id, document=document, limit=limit))
        keyword = vectors.keyword_ranked(query, session_id, agent_id, document=document, limit=max(limit, CANDIDATES))
        try:
            await self._embed_missing(embedder, vectors, session_id, agent_id, document, progress)
            [wanted] = await embedder.embed([query], query=True)
        except PalimpsestError as err:
            return SearchResult([s.passage for s in keyword[:limit]], problem=err.message)
        semantic = vectors.nearest(wanted, session_id, agent_id, embedder.key, document=document,
                                   limit=max(limit, CANDIDATES))
        return SearchResult(blend(keyword, semantic, limit), semantic=True)

    @staticmethod
    async def _embed_missing(embedder: Embedder, vectors: PassageVectors, session_id: SessionId,
                             agent_id: AgentId | None, document: str | None,
                             progress: Callable[[int, int], None] | None) -> None:
        """Embeds the passages in scope that have no vector of this model yet, a batch per request."""
        missing = vectors.unembedded(session_id, agent_id, embedder.key, document=document,
                                     limit=MAX_EMBEDDED_PER_SEARCH)
        done = 0
        for batch in batches(missing, embedder.max_batch):
            made = await embedder.embed([body for _, body in batch])
            vectors.put_vectors(embedder.key, [(key, vector) for (key, _), vector in zip(batch, made, strict=True)])
            done += len(batch)
            if progress is not None:
                progress(done, len(missing))
