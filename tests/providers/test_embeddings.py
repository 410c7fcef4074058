"""Embeddings through the real SDKs against the fake servers' real wire formats: OpenAI's POST /v1/embeddings
(base64 by default, at most 2048 inputs) and Gemini's batchEmbedContents (at most 100 requests, task types); the
search embeds a knowledge folder's passages once, in batches each provider accepts, and keeps them with their files."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from data.db.agents import DEFAULT_AGENT_ID
from data.documents.knowledge import KnowledgeIndexer
from data.providers.embedder_factory import SdkEmbedderFactory
from data.providers.gemini_embeddings import GeminiEmbedder
from data.providers.openai_embeddings import OpenAIEmbedder
from data.storage import Storage
from domain.documents import Passage
from domain.errors import AuthenticationFailed, ProviderError
from domain.models import Provider, ProviderType, Session
from domain.semantic import Embedder, ScoredPassage, batches, blend
from domain.usecases.search_documents import SearchDocuments
from tests.fakeservers import FakeGeminiServer, FakeOpenAIServer
from tests.fakeservers.embeddings import concept_vector

KEY = "sk-embed-test"
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture()
def storage(tmp_path: Path) -> Iterator[Storage]:
    store = Storage.open(tmp_path / "home")
    yield store
    store.close()


def _gemini(server: FakeGeminiServer, model: str = "gemini-embedding-001") -> GeminiEmbedder:
    return GeminiEmbedder(provider_name="gemini", api_key=KEY, base_url=server.base_url, model=model)


def _openai(server: FakeOpenAIServer, model: str = "text-embedding-3-small") -> OpenAIEmbedder:
    return OpenAIEmbedder(provider_name="openai", api_key=KEY, base_url=server.base_url, model=model)


async def test_openai_vectors_come_back_in_order_from_the_sdks_base64_default() -> None:
    with FakeOpenAIServer(api_key=KEY) as server:
        vectors = await _openai(server).embed(["a parked car", "a hot meal"])
    assert [round(v, 5) for v in vectors[0]] == concept_vector("a parked car")
    assert [round(v, 5) for v in vectors[1]] == concept_vector("a hot meal")
    (sent,) = [r for r in server.log if r.path == "/v1/embeddings"]
    assert sent.json()["encoding_format"] == "base64" and sent.json()["input"] == ["a parked car", "a hot meal"]


async def test_openai_refuses_more_than_2048_inputs_and_an_unknown_model() -> None:
    with FakeOpenAIServer(api_key=KEY) as server:
        with pytest.raises(ProviderError, match=r"'\$\.input' is invalid"):
            await _openai(server).embed(["word"] * 2049)
        with pytest.raises(ProviderError, match="text-embedding-9` does not exist"):
            await _openai(server, "text-embedding-9").embed(["word"])
        assert len(await _openai(server).embed(["word"] * 2048)) == 2048


async def test_gemini_sends_batch_embed_contents_with_the_task_type_and_refuses_over_100() -> None:
    with FakeGeminiServer(api_key=KEY) as server:
        passages = await _gemini(server).embed(["the physician", "the sea"])
        query = await _gemini(server).embed(["a doctor"], query=True)
        with pytest.raises(ProviderError, match="at most 100 requests can be in one batch"):
            await _gemini(server).embed(["word"] * 101)
        with pytest.raises(ProviderError, match="models/gemini-embedding-9 is not found"):
            await _gemini(server, "gemini-embedding-9").embed(["word"])
    assert passages == [concept_vector("the physician"), concept_vector("the sea")]
    assert query == [concept_vector("a doctor")]
    sent = [r for r in server.log if r.path.endswith(":batchEmbedContents")]
    assert sent[0].path == "/v1beta/models/gemini-embedding-001:batchEmbedContents"
    assert [r["taskType"] for r in sent[0].json()["requests"]] == ["RETRIEVAL_DOCUMENT"] * 2
    assert sent[0].json()["requests"][0]["model"] == "models/gemini-embedding-001"
    assert sent[1].json()["requests"][0]["taskType"] == "RETRIEVAL_QUERY"


def test_a_hosted_provider_without_a_key_cannot_embed() -> None:
    with pytest.raises(AuthenticationFailed):
        SdkEmbedderFactory(env={}).create(Provider("p1", "openai", ProviderType.OPENAI), None, "text-embedding-3-small")


class OneEmbedder:
    """The EmbedderSource of a test: the same embedder for every agent."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def for_agent(self, agent_id: str | None) -> Embedder | None:
        return self.embedder


async def test_a_folders_passages_are_embedded_once_in_batches_gemini_accepts_and_leave_with_their_files(
    storage: Storage, tmp_path: Path
) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    for n in range(150):
        (kb / f"note{n:03d}.md").write_text(f"# Note {n}\nLog entry number {n} of the voyage.\n", encoding="utf-8")
    (kb / "note042.md").write_text("# Note 42\nThe physician sleeps aboard.\n", encoding="utf-8")
    KnowledgeIndexer(storage.documents).add(DEFAULT_AGENT_ID, kb)
    storage.sessions.create(Session("s1", "Docs", DEFAULT_AGENT_ID, T0, T0))
    with FakeGeminiServer(api_key=KEY) as server:
        search = SearchDocuments(storage.documents, storage.passage_vectors, OneEmbedder(_gemini(server)))
        steps: list[tuple[int, int]] = []
        found = await search("doctor slumber", "s1", DEFAULT_AGENT_ID, limit=3,
                             progress=lambda done, total: steps.append((done, total)))
        first = list(server.embedded)
        await search("doctor slumber", "s1", DEFAULT_AGENT_ID, limit=3)
        second = server.embedded[len(first):]
        only = await search("doctor slumber", "s1", DEFAULT_AGENT_ID, document="note007.md", limit=3)
    assert found.semantic and found.passages[0].document == "note042.md"
    assert first == [100, 50, 1] and second == [1]
    assert steps == [(100, 150), (150, 150)]  # what the tool reports while the first search embeds
    assert only.semantic and {p.document for p in only.passages} == {"note007.md"}  # one document asked: only it
    os.remove(kb / "note042.md")
    KnowledgeIndexer(storage.documents).reindex(DEFAULT_AGENT_ID)
    assert storage.passage_vectors.unembedded("s1", DEFAULT_AGENT_ID, "gemini/gemini-embedding-001", document=None,
                                              limit=10) == []
    with storage._db.read() as s:  # the deleted file's vector went with its passage
        from sqlalchemy import text

        assert s.execute(text("SELECT count(*) FROM passage_vectors")).scalar_one() == 149


def test_the_blend_mixes_bm25_and_cosine_each_scaled_over_the_candidates() -> None:
    a, b, c = (Passage(name, name) for name in ("a.md", "b.md", "c.md"))
    keyword = [ScoredPassage(1, a, 9.0), ScoredPassage(2, b, 8.0), ScoredPassage(3, c, 1.0)]
    semantic = [ScoredPassage(3, c, 0.9), ScoredPassage(2, b, 0.8), ScoredPassage(1, a, 0.1)]
    assert blend(keyword, semantic, 3) == [b, a, c]  # good by both beats best by one: 0.875 > 0.5 = 0.5
    assert blend(keyword, [], 2) == [a, b]
    assert blend([], semantic, 1) == [c]
    flat = [ScoredPassage(1, a, 0.5), ScoredPassage(3, c, 0.5)]  # the same for all: tells nothing, BM25 decides
    assert blend(keyword[1:], flat, 1) == [b]


def test_batches_keep_each_providers_count_and_a_character_budget() -> None:
    rows = [(n, "x" * 10_000) for n in range(250)]
    cut = batches(rows, 100)
    assert [len(b) for b in cut] == [66, 66, 66, 52]  # 6,000 characters each at most, 400,000 a request
    assert all(len(body) == 6_000 for batch in cut for _, body in batch)
    assert [len(b) for b in batches([(n, "y") for n in range(250)], 100)] == [100, 100, 50]
