"""`palimpsest knowledge ...`: a folder added to an agent's knowledge is indexed with progress on standard error, its
conversations search and read it (the answer's page citation printed by `chat`), and it can be listed and removed;
a DOCX and an EPUB are read by section, in a folder and as an attachment."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from tests.attachment_samples import docx, epub, pdf
from tests.cli.harness import Cli
from tests.cli.test_documents_e2e import ReaderBrain, _last_turn, page_texts
from tests.fakeservers import fake_provider_servers
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply, ToolCall

KEY = "sk-knowledge-cli"
MODEL = "claude-knowledge-32k"
SECTION_HIT = re.compile(r"\[([^\]§]+?) § ([^\]]+)\]")


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


class SectionBrain:
    """A model that searches for the question's words, reads the best hit's section, and answers with the line that
    holds a figure, citing the section."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.reads: list[dict[str, str]] = []

    def respond(self, request: NormalizedRequest) -> Answer:
        if "search_documents" not in request.tool_names:  # a title request
            return Reply.of_text("Questions")
        question, results = _last_turn(request)
        if not results:
            return Reply(tool_calls=(ToolCall("search_documents", {"query": question.split("ABOUT", 1)[1]}),))
        last = results[-1]
        if last.name == "search_documents":
            hit = SECTION_HIT.search(last.text)
            assert hit is not None, last.text
            call = {"document": hit.group(1), "section": hit.group(2)}
            with self._lock:
                self.reads.append(call)
            return Reply(tool_calls=(ToolCall("read_document", call),))
        sentence = next(line for line in last.text.splitlines() if re.search(r"\d", line) and line[:1] != "[")
        return Reply.of_text(f"{sentence.rstrip('.')}. [{self.reads[-1]['document']} § {self.reads[-1]['section']}]")


def test_a_docx_and_an_epub_are_searched_and_read_by_section_from_a_folder_and_as_an_attachment(
    tmp_path: Path
) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "sailing.epub").write_bytes(epub("Sailing", [
        ("Knots", "<p>The bowline holds and never slips.</p>"),
        ("Anchoring", "<p>Let out 7 times the depth in chain.</p>")], part="Harbour"))
    filler = [(1, f"Chapter {n}", f"Routine checks of the hull and rigging, part {n}. " * 60) for n in range(1, 31)]
    book = tmp_path / "manual.docx"  # about 90,000 characters: over half a 32K window, so it goes as its card
    book.write_bytes(docx("Pump manual", [*filler[:17], (2, "Valve maintenance", "Torque valve V-17 to 42 Nm."),
                                          *filler[17:]]))
    brain = SectionBrain()
    with fake_provider_servers(brain, api_key=KEY, context_windows={MODEL: 32_000}) as fakes:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", fakes.env(KEY))
        added = cli.run("knowledge", "add", "General assistant", str(kb), subprocess_run=False)
        assert added.code == 0 and f"{kb.resolve()}: 1 added" in added.err, added.err
        assert cli.run("models", "add", "anthropic", MODEL, "--context-window", "32000", subprocess_run=False).code == 0
        chat = cli.run("chat", "-p", "anthropic", "-m", MODEL, "What ABOUT anchoring chain depth",
                       subprocess_run=False)
        assert chat.code == 0, chat.err
        assert "Let out 7 times the depth in chain. [sailing.epub § Anchoring]" in chat.out
        assert cli.run("knowledge", "remove", "General assistant", str(kb), subprocess_run=False).code == 0
        attached = cli.run("chat", "-p", "anthropic", "-m", MODEL, "-a", str(book), "What ABOUT valve V-17 torque",
                           subprocess_run=False)
        assert attached.code == 0, attached.err
        assert "Torque valve V-17 to 42 Nm. [manual.docx § Valve maintenance]" in attached.out
    assert brain.reads == [{"document": "sailing.epub", "section": "Anchoring"},
                           {"document": "manual.docx", "section": "Valve maintenance"}]
