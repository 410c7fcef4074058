"""SqlPassageVectors: the passages' embeddings (float32, unit length, one row per passage and model) and the two
rankings semantic search blends: BM25 from FTS5 and cosine similarity over the stored vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy import text

from data.db.engine import Database
from data.documents.store import _NAMED, _SCOPE, SNIPPET_TOKENS, any_words
from domain.documents import Passage
from domain.models import AgentId, SessionId
from domain.semantic import ScoredPassage

if TYPE_CHECKING:  # numpy is imported on the first semantic search, not at start-up
    import numpy as np

SEMANTIC_SNIPPET_CHARS = 400  # what a passage found by similarity shows of itself (BM25's show their snippet)
_IN_SCOPE = f"JOIN documents d ON d.id = p.document_id WHERE {_SCOPE}"


def unit(vector: Sequence[float]) -> np.ndarray:
    """The vector as float32 scaled to length 1 (a zero vector stays zero)."""
    import numpy as np

    array = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return array / norm if norm > 0 else array


class SqlPassageVectors:
    """Implements domain.semantic.PassageVectors over the document tables and passage_vectors (migration 0034)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def keyword_ranked(self, query: str, session_id: SessionId, agent_id: AgentId | None, *,
                       document: str | None, limit: int) -> Sequence[ScoredPassage]:
        match = any_words(query)
        if match is None:
            return []
        sql = ("SELECT p.id, d.name, p.page, p.section, snippet(document_passages_fts, 0, '', '', ' … ', "
               f"{SNIPPET_TOKENS}), bm25(document_passages_fts) FROM document_passages_fts JOIN document_passages p"
               f" ON p.id = document_passages_fts.rowid {_IN_SCOPE} AND document_passages_fts MATCH :q"
               + (f" AND {_NAMED}" if document else "") + " ORDER BY rank LIMIT :n")
        with self._db.read() as s:
            rows = s.execute(text(sql), self._params(session_id, agent_id, document) | {"q": match, "n": limit})
            return [ScoredPassage(r[0], Passage(r[1], r[4], r[2], r[3]), -float(r[5])) for r in rows]

    def unembedded(self, session_id: SessionId, agent_id: AgentId | None, model: str, *, document: str | None,
                   limit: int) -> Sequence[tuple[int, str]]:
        sql = (f"SELECT p.id, p.text FROM document_passages p {_IN_SCOPE}" + (f" AND {_NAMED}" if document else "")
               + " AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.passage_id = p.id AND v.model = :m)"
               " ORDER BY p.id LIMIT :n")
        with self._db.read() as s:
            rows = s.execute(text(sql), self._params(session_id, agent_id, document) | {"m": model, "n": limit})
            return [(r[0], r[1]) for r in rows]

    def put_vectors(self, model: str, vectors: Sequence[tuple[int, Sequence[float]]]) -> None:
        rows = [{"p": key, "m": model, "v": unit(vector).tobytes()} for key, vector in vectors]
        if not rows:
            return
        with self._db.write() as s:
            s.execute(text("INSERT OR REPLACE INTO passage_vectors (passage_id, model, vector) VALUES (:p, :m, :v)"),
                      rows)

    def nearest(self, vector: Sequence[float], session_id: SessionId, agent_id: AgentId | None, model: str, *,
                document: str | None, limit: int) -> Sequence[ScoredPassage]:
        import numpy as np

        wanted = unit(vector)
        sql = (f"SELECT p.id, v.vector FROM passage_vectors v JOIN document_passages p ON p.id = v.passage_id "
               f"{_IN_SCOPE}" + (f" AND {_NAMED}" if document else "") + " AND v.model = :m")
        with self._db.read() as s:
            rows = [(r[0], r[1]) for r in s.execute(text(sql), self._params(session_id, agent_id, document)
                                                    | {"m": model})]
        rows = [(key, blob) for key, blob in rows if len(blob) == wanted.nbytes]  # another size: another model
        if not rows:
            return []
        matrix = np.frombuffer(b"".join(blob for _, blob in rows), dtype=np.float32).reshape(len(rows), -1)
        scores = matrix @ wanted
        best = np.argsort(-scores, kind="stable")[:limit]
        chosen = {rows[i][0]: float(scores[i]) for i in best}
        with self._db.read() as s:
            found = s.execute(text("SELECT p.id, d.name, p.page, p.section, p.text FROM document_passages p"
                                   " JOIN documents d ON d.id = p.document_id"
                                   f" WHERE p.id IN ({', '.join(str(int(k)) for k in chosen)})"))
            passages = {r[0]: Passage(r[1], _snippet(r[4]), r[2], r[3]) for r in found}
        return [ScoredPassage(key, passages[key], score) for key, score in chosen.items() if key in passages]

    @staticmethod
    def _params(session_id: SessionId, agent_id: AgentId | None, document: str | None) -> dict[str, object]:
        return {"s": session_id, "a": agent_id or "", "doc": (document or "").strip()}


def _snippet(body: str) -> str:
    flat = " ".join(body.split())
    return flat if len(flat) <= SEMANTIC_SNIPPET_CHARS else flat[:SEMANTIC_SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"
