"""`palimpsest knowledge ...`: a folder added to an agent's knowledge is indexed with progress on standard error, its
conversations search and read it (the answer's page citation printed by `chat`), and it can be listed and removed."""

from __future__ import annotations

from pathlib import Path

from tests.attachment_samples import pdf
from tests.cli.harness import Cli
from tests.cli.test_documents_e2e import ReaderBrain, page_texts
from tests.fakeservers import fake_provider_servers

KEY = "sk-knowledge-cli"
MODEL = "claude-knowledge-32k"


def test_a_knowledge_folder_is_indexed_searched_by_chat_cited_by_page_and_removed(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    (kb / "guides").mkdir(parents=True)
    (kb / "manual.pdf").write_bytes(pdf(page_texts()))
    (kb / "guides" / "hull.md").write_text("# Hull\nPaint the hull blue every spring.\n", encoding="utf-8")
    brain = ReaderBrain()
    with fake_provider_servers(brain, api_key=KEY, context_windows={MODEL: 32_000}) as fakes:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", fakes.env(KEY))
        added = cli.run("knowledge", "add", "General assistant", str(kb), subprocess_run=False)
        assert added.code == 0, added.err
        assert "2 files indexed" in added.out
        assert f"{kb.resolve()}: 2 added, 0 updated, 0 unchanged, 0 removed" in added.err  # progress on stderr
        listed = cli.run("knowledge", "list", subprocess_run=False)
        assert str(kb.resolve()) in listed.out and "General assistant" in listed.out
        assert cli.run("models", "add", "anthropic", MODEL, "--context-window", "32000", subprocess_run=False).code == 0
        chat = cli.run("chat", "-p", "anthropic", "-m", MODEL, "What does the manual say ABOUT torque valve V-17",
                       subprocess_run=False)
        assert chat.code == 0, chat.err
        assert "The torque for valve V-17 is 42 newton metres. [manual.pdf p. 412]" in chat.out
        again = cli.run("knowledge", "reindex", subprocess_run=False)
        assert f"{kb.resolve()}: 0 added, 0 updated, 2 unchanged, 0 removed" in again.err
        removed = cli.run("knowledge", "remove", "General assistant", str(kb), subprocess_run=False)
        assert removed.code == 0 and "Removed" in removed.out
        assert "No knowledge folders" in cli.run("knowledge", "list", subprocess_run=False).out
        unknown = cli.run("knowledge", "remove", "General assistant", str(kb), subprocess_run=False)
        plain = cli.run("chat", "-p", "anthropic", "-m", MODEL, "Hello there", subprocess_run=False)
    (hello,) = [tools for text, tools in brain.offered if text == "Hello there"]
    assert plain.code == 0 and "http_request" in hello
    assert "search_documents" not in hello  # no knowledge folder, no document: nothing to read, not offered
    assert "search_documents" in brain.offered[0][1]
    assert unknown.code != 0 and "is not one of General assistant's knowledge folders" in unknown.err
    assert brain.searched and "[manual.pdf p. 412]" in brain.searched[0].splitlines()[1]
