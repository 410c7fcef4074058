"""Semantic search benchmark: the 2,000-note knowledge folder of bench.knowledge_index, searched with semantic search
on through the real openai SDK against the fake OpenAI server's /v1/embeddings (bag-of-concepts vectors of 64
dimensions, so the timings are the app's own work and the local HTTP round trips, not a real model's). Reported: the
first search (every passage embedded once), a second one (only the query), and a BM25-only search for comparison.
Run from the repository root: `.venv/bin/python -m bench.semantic_search [--files 2000]`; writes
bench/results/semantic_search.md."""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

from bench.knowledge_index import write_folder
from data.db.agents import DEFAULT_AGENT_ID
from data.documents.knowledge import KnowledgeIndexer
from data.providers.openai_embeddings import OpenAIEmbedder
from data.storage import Storage
from domain.usecases.search_documents import SearchDocuments
from tests.fakeservers import FakeOpenAIServer

KEY = "sk-bench-semantic"
RESULTS = Path(__file__).resolve().parent / "results" / "semantic_search.md"


class Always:
    """The embedder source of the benchmark: semantic search on for every agent."""

    def __init__(self, embedder: OpenAIEmbedder) -> None:
        self.embedder = embedder

    def for_agent(self, agent_id: str | None) -> OpenAIEmbedder:
        return self.embedder


def run(files: int) -> list[tuple[str, str, str]]:
    """Timings as (step, seconds, result)."""
    rows: list[tuple[str, str, str]] = []
    server = FakeOpenAIServer(api_key=KEY)
    with tempfile.TemporaryDirectory(prefix="palimpsest-semantic-") as tmp, server:
        root = Path(tmp) / "kb"
        write_folder(root, files)
        storage = Storage.open(Path(tmp) / "home")
        try:
            KnowledgeIndexer(storage.documents).add(DEFAULT_AGENT_ID, root)
            _, passages = storage.documents.counts(DEFAULT_AGENT_ID, str(root.resolve()))
            embedder = OpenAIEmbedder(provider_name="openai", api_key=KEY, base_url=server.base_url,
                                      model="text-embedding-3-small")
            semantic = SearchDocuments(storage.documents, storage.passage_vectors, Always(embedder))
            words = SearchDocuments(storage.documents)

            async def searches() -> None:
                for step, search in (("first semantic search (embeds every passage)", semantic),
                                     ("second semantic search (embeds the query)", semantic),
                                     ("BM25 alone", words)):
                    calls = len(server.embedded)
                    start = time.perf_counter()
                    found = await search("part number PN-01234 valve torque", "none", DEFAULT_AGENT_ID)
                    seconds = time.perf_counter() - start
                    sent = server.embedded[calls:]
                    rows.append((step, f"{seconds:.2f}", f"{len(sent)} embedding requests ({sum(sent):,} texts); "
                                 f"best: {found.passages[0].where if found.passages else 'nothing'}"))

            asyncio.run(searches())
            rows.append(("index holds", "-", f"{files:,} files, {passages:,} passages"))
        finally:
            storage.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=2000)
    args = parser.parse_args()
    rows = run(args.files)
    table = ["| step | seconds | result |", "|---|--:|---|"] + [f"| {a} | {b} | {c} |" for a, b, c in rows]
    RESULTS.write_text("# Semantic search over a knowledge folder\n\n" + "\n".join(table) + "\n", encoding="utf-8")
    print("\n".join(table))


if __name__ == "__main__":
    main()
