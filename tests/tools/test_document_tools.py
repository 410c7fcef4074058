"""search_documents and read_document: ranked passages with their page or section, pages read a bounded stretch at a
time, and errors the model can act on."""

from __future__ import annotations

from collections.abc import Sequence

from data.tools.documents import MAX_PAGES, MAX_READ_CHARS, ReadDocumentTool, SearchDocumentsTool
from data.tools.executor import BuiltinTools
from domain.documents import DocumentInfo, Passage, citations, parse_pages
from domain.provider_ports import ToolContext
from tests.fakes import FakeClock, FakeMessageRepository
from tests.fakes_config import FakeMemoryRepository

CTX = ToolContext("s1", "agent")


class FakeDocumentIndex:
    """One 100-page manual (page n says "page n text", pages 40-44 are long) and one Markdown note; records each
    search."""

    def __init__(self) -> None:
        self.pages = {n: ("x" * 5_000 if 40 <= n <= 44 else f"page {n} text") for n in range(1, 101)}
        self.searches: list[tuple[str, str | None]] = []

    def has_knowledge(self, agent_id: str | None) -> bool:
        return True

    def find(self, session_id: str, agent_id: str | None, document: str) -> DocumentInfo | None:
        if document.lower() == "manual.pdf":
            return DocumentInfo("manual.pdf", "pdf", 1000, 100, 100)
        if document == "notes.md":
            return DocumentInfo("notes.md", "text", 100, None, 2)
        return None

    def search(self, query: str, session_id: str, agent_id: str | None, *, document: str | None = None,
               limit: int = 8) -> Sequence[Passage]:
        self.searches.append((query, document))
        return [Passage("manual.pdf", "the valve   torque\nis 42", page=12)] if "torque" in query else []

    def read(self, session_id: str, agent_id: str | None, document: str, *, pages: tuple[int, int] | None = None,
             section: str | None = None) -> Sequence[Passage]:
        if pages is not None:
            return [Passage("manual.pdf", self.pages[n], page=n) for n in range(pages[0], pages[1] + 1)]
        return [Passage("notes.md", "Install the pump.", section="Setup")] if section == "Setup" else []


async def test_search_returns_ranked_passages_with_their_page_on_one_line_each() -> None:
    index = FakeDocumentIndex()
    out = await SearchDocumentsTool(index).run({"query": "torque", "document": "manual.pdf"}, CTX)
    assert out.output.splitlines()[1] == "[manual.pdf p. 12] the valve torque is 42"
    assert index.searches == [("torque", "manual.pdf")]
    none = await SearchDocumentsTool(index).run({"query": "boat"}, CTX)
    assert none.output == "No passages match 'boat'."


async def test_reading_pages_is_bounded_and_says_where_to_go_on() -> None:
    tool = ReadDocumentTool(FakeDocumentIndex())
    out = (await tool.run({"document": "manual.pdf", "pages": "3-4"}, CTX)).output
    assert out.splitlines() == ["[manual.pdf pages 3-4 of 100; cite as [manual.pdf p. N]]", "[manual.pdf p. 3]",
                                "page 3 text", "[manual.pdf p. 4]", "page 4 text", '[next: pages="5-9"]']
    wide = (await tool.run({"document": "manual.pdf", "pages": "1-100"}, CTX)).output
    assert f"pages 1-{MAX_PAGES} of 100" in wide  # at most MAX_PAGES a call
    long = (await tool.run({"document": "manual.pdf", "pages": "40-44"}, CTX)).output
    assert len(long) <= MAX_READ_CHARS + 200 and "[cut at 12,000 characters" in long
    assert long.endswith('[next: pages="42-46"]')  # goes on at the page that was cut
    section = (await tool.run({"document": "notes.md", "section": "Setup"}, CTX)).output
    assert section == "[notes.md § Setup]\n[notes.md § Setup]\nInstall the pump."


async def test_bad_arguments_come_back_as_errors_the_model_can_act_on() -> None:
    tools = BuiltinTools(FakeMemoryRepository(), FakeMessageRepository(), FakeClock(), documents=FakeDocumentIndex())
    missing = await tools.execute("read_document", {"document": "other.pdf", "pages": "1"}, CTX)
    assert missing.is_error and "No document named 'other.pdf'" in missing.output
    past = await tools.execute("read_document", {"document": "manual.pdf", "pages": "101"}, CTX)
    assert past.is_error and "has 100 pages" in past.output
    shape = await tools.execute("read_document", {"document": "manual.pdf", "pages": "ten"}, CTX)
    assert shape.is_error and '"12-14"' in shape.output
    nosection = await tools.execute("read_document", {"document": "notes.md", "section": "Nope"}, CTX)
    assert nosection.is_error and "search it with search_documents" in nosection.output


def test_the_document_tools_are_offered_only_when_named() -> None:
    tools = BuiltinTools(FakeMemoryRepository(), FakeMessageRepository(), FakeClock(), documents=FakeDocumentIndex())
    assert "search_documents" not in [d.name for d in tools.definitions()]
    assert [d.name for d in tools.definitions(["search_documents", "read_document"])] == ["search_documents",
                                                                                          "read_document"]


def test_page_citations_and_ranges_parse() -> None:
    assert citations("See [manual.pdf p. 412] and [manual.pdf p. 7], again [manual.pdf p. 412].") == [
        ("manual.pdf", 412), ("manual.pdf", 7)]
    assert parse_pages("12") == (12, 12) and parse_pages(" 12 – 14 ") == (12, 14)
