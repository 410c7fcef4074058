"""Optional semantic search, end to end through the CLI, the real openai and google-genai SDKs and the fake servers'
/v1/embeddings and batchEmbedContents: a question related in meaning but sharing no word with its passage finds it
only once the agent's semantic search is on; passages are embedded once, and an unknown embedding model falls back
to words alone."""

from __future__ import annotations

import threading
from pathlib import Path

from tests.cli.harness import Cli
from tests.cli.test_documents_e2e import _last_turn
from tests.fakeservers import fake_provider_servers
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply, ToolCall

KEY = "sk-semantic-cli"
MODEL = "claude-semantic-32k"
AGENT = "General assistant"
NOTES = {  # no file holds the words "sedan" or "storage"
    "boat.md": "# Parking\nThe automobile is parked in the garage behind the boathouse.\n",
    "galley.md": "# Galley\nDinner is served at seven in the galley.\n",
    "deck.md": "# Deck\nThe deck is scrubbed with fresh water each morning.\n",
    "engine.md": "# Engine\nThe diesel engine runs on the port side.\n",
}


class SearchOnceBrain:
    """Searches the knowledge for the words after ABOUT, then answers with the search's first result line."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.results: list[str] = []

    def respond(self, request: NormalizedRequest) -> Answer:
        if "search_documents" not in request.tool_names:  # a title request
            return Reply.of_text("Notes")
        question, results = _last_turn(request)
        if not results:
            return Reply(tool_calls=(ToolCall("search_documents", {"query": question.split("ABOUT", 1)[1]}),))
        with self._lock:
            self.results.append(results[-1].text)
        lines = results[-1].text.splitlines()
        return Reply.of_text("FOUND " + (lines[1] if len(lines) > 1 else lines[0]))


def test_a_query_sharing_no_word_with_its_passage_finds_it_only_with_semantic_search_on(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    for name, body in NOTES.items():
        (kb / name).write_text(body, encoding="utf-8")
    brain = SearchOnceBrain()
    with fake_provider_servers(brain, api_key=KEY, context_windows={MODEL: 32_000}) as fakes:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", fakes.env(KEY))
        assert cli.run("knowledge", "add", AGENT, str(kb), subprocess_run=False).code == 0
        assert cli.run("models", "add", "anthropic", MODEL, "--context-window", "32000", subprocess_run=False).code == 0

        def ask() -> str:
            chat = cli.run("chat", "-p", "anthropic", "-m", MODEL, "Where is it ABOUT sedan storage",
                           subprocess_run=False)
            assert chat.code == 0, chat.err
            return chat.out

        words_only = ask()
        assert fakes.openai.embedded == []  # off: nothing left the machine
        setter = cli.run("knowledge", "semantic", AGENT, "on", "--model", "openai/text-embedding-3-small",
                         subprocess_run=False)
        assert setter.code == 0, setter.err
        assert setter.out == f"Semantic search is on for {AGENT} (embeddings: openai/text-embedding-3-small).\n"
        semantic = ask()
        first_calls = list(fakes.openai.embedded)
        again = ask()
        second_calls = fakes.openai.embedded[len(first_calls):]
        assert cli.run("knowledge", "semantic", AGENT, "on", "--model", "gemini", subprocess_run=False).code == 0
        by_gemini = ask()  # another model: its own vectors, through google-genai's batchEmbedContents
        assert cli.run("agents", "set", AGENT, "embedding_model=openai/text-embedding-9-huge",
                       subprocess_run=False).code == 0
        unknown = ask()
        unknown_result = brain.results[-1]
        assert cli.run("knowledge", "semantic", AGENT, "off", subprocess_run=False).code == 0
        before_off = len(fakes.openai.embedded)
        off_again = ask()
        assert len(fakes.openai.embedded) == before_off  # off again: nothing leaves the machine
    assert "FOUND No passages match" in words_only and "FOUND No passages match" in off_again
    assert "FOUND [boat.md § Parking] # Parking The automobile is parked in the garage" in semantic
    assert "FOUND [boat.md § Parking]" in again
    assert first_calls == [len(NOTES), 1]  # every passage once, in one request; then the query
    assert second_calls == [1]  # the passages' vectors are stored: only the query is embedded again
    assert "by words and meaning" in brain.results[1]
    assert "FOUND [boat.md § Parking]" in by_gemini and fakes.gemini.embedded == [len(NOTES), 1]
    assert "semantic search failed" in unknown and unknown_result.startswith("No passages match")
    assert "text-embedding-9-huge" in unknown_result  # the provider's own words: the model does not exist
