"""An 800-page PDF attached to a 32K-window model through the real container, SDK adapter and fake server (Anthropic,
OpenAI Chat Completions, Gemini): it is not refused, the request carries its card, the model's searches and reads
return the planted pages, no request overflows, and every page the answers cite holds the fact."""

from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path

import pytest

from app.container import Container
from domain.events import ChatError, TextDelta
from tests.aiohttp_sessions import closing_adapters
from tests.attachment_samples import pdf
from tests.fakes import FakeApiKeyStorage
from tests.fakeservers import fake_provider_servers
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply, TextPart, ToolCall, ToolResultPart

KEY = "sk-ant-documents-800"
MODEL = "claude-docs-32k"
WINDOW = 32_000
PAGES = 800
FACTS = {  # page -> (question words, planted fact)
    7: ("bilge pump serial", "The bilge pump serial number is BP-7731."),
    412: ("torque valve V-17", "The torque for valve V-17 is 42 newton metres."),
    799: ("warranty expiry", "The warranty expires on 31 March 2031."),
}
FILLER = "Routine maintenance notes: inspect hoses, wipe the panels, log the hours and check the gauges. "
CITE = re.compile(r"\[manual\.pdf p\. (\d+)\]")
PAGE_HIT = re.compile(r"\[manual\.pdf p\. (\d+)\]")


def page_texts() -> list[str]:
    """800 pages of filler (about 40K tokens in all), with a fact planted on three known pages."""
    texts = []
    for number in range(1, PAGES + 1):
        fact = FACTS[number][1] if number in FACTS else ""
        texts.append(f"Service manual page {number}. {FILLER}{fact} {FILLER}")
    return texts


class ReaderBrain:
    """A model that reads on demand: it searches the document for the question's words, reads the best page, and
    answers with the sentence it read, citing the page."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: list[NormalizedRequest] = []
        self.searched: list[str] = []
        self.read: list[str] = []
        self.offered: list[tuple[str, tuple[str, ...]]] = []  # every request's last user text and its tools

    def respond(self, request: NormalizedRequest) -> Answer:
        with self._lock:
            self.offered.append((request.last_user_text, request.tool_names))
        if "search_documents" not in request.tool_names:  # a title or a summary request
            return Reply.of_text("Manual questions")
        with self._lock:
            self.requests.append(request)
        question, results = _last_turn(request)
        if not results:
            words = question.split("ABOUT", 1)[1].strip()
            return Reply(tool_calls=(ToolCall("search_documents", {"query": words, "document": "manual.pdf"}),))
        last = results[-1]
        if last.name == "search_documents":
            with self._lock:
                self.searched.append(last.text)
            best = PAGE_HIT.search(last.text)
            assert best is not None, last.text
            return Reply(tool_calls=(ToolCall("read_document", {"document": "manual.pdf", "pages": best.group(1)}),))
        with self._lock:
            self.read.append(last.text)
        page = PAGE_HIT.search(last.text)
        sentence = next((s.strip() + "." for s in last.text.split(".") if ("The " in s and " is" in s)
                         or "expires" in s), "nothing found.")
        return Reply.of_text(f"{sentence.split('. ')[-1]} [manual.pdf p. {page.group(1) if page else '?'}]")


def _last_turn(request: NormalizedRequest) -> tuple[str, list[ToolResultPart]]:
    flat = [(m.role, p) for m in request.messages for p in m.parts]
    for index in range(len(flat) - 1, -1, -1):
        role, part = flat[index]
        if role == "user" and isinstance(part, TextPart) and "ABOUT" in part.text:
            return part.text, [p for _, p in flat[index + 1:] if isinstance(p, ToolResultPart)]
    return "", []


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_an_800_page_pdf_is_read_on_demand_by_a_32k_model_and_its_citations_resolve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    texts = page_texts()
    brain = ReaderBrain()
    with fake_provider_servers(brain, api_key=KEY, context_windows={MODEL: WINDOW}) as fakes:
        server = getattr(fakes, provider)
        for name, value in fakes.env(KEY).items():
            monkeypatch.setenv(name, value)
        c = Container.build(tmp_path / "home", keys=FakeApiKeyStorage({provider: KEY}))
        try:
            c.add_model(provider, MODEL, WINDOW)
            session = c.create_session(provider_id=provider, model_id=MODEL)
            manual = c.attachments.from_bytes("manual.pdf", pdf(texts))
            assert manual.pages == PAGES

            async def ask(question: str, files: tuple = ()) -> tuple[str, list[object]]:
                events: list[object] = []
                reply: list[str] = []
                async for event in c.send_message(session.id, question, provider_id=provider, model_id=MODEL,
                                                  attachments=files):
                    events.append(event)
                    if isinstance(event, TextDelta):
                        reply.append(event.text)
                return "".join(reply), events

            async def run() -> list[tuple[str, list[object]]]:
                answers = []
                for index, (words, _fact) in enumerate(FACTS.values()):
                    files = (manual,) if index == 0 else ()
                    answers.append(await ask(f"Question {index + 1}: what does the manual say ABOUT {words}", files))
                return answers

            answers = asyncio.run(closing_adapters(c, run()))
        finally:
            c.close()
    for _, events in answers:
        assert [e for e in events if isinstance(e, ChatError)] == []
    first = brain.requests[0]
    card = next(p.text for m in first.messages for p in m.parts if isinstance(p, TextPart) and "[Document" in p.text)
    assert "manual.pdf" in card and "800 pages" in card and "Service manual page 1." in card
    assert "search_documents" in card and len(card) <= 3_200  # the card (CARD_MAX_CHARS), not the 800 pages
    for (page, (_words, fact)), searched, read in zip(FACTS.items(), brain.searched, brain.read, strict=True):
        assert f"[manual.pdf p. {page}]" in searched.splitlines()[1]  # the planted page ranks first
        assert fact in read
    for (page, (_words, fact)), (reply, _) in zip(FACTS.items(), answers, strict=True):
        cited = [int(n) for n in CITE.findall(reply)]
        assert cited == [page], reply
        assert fact in texts[cited[0] - 1]  # the citation resolves to the page that holds the fact
        assert fact in reply
    assert max(s.input_tokens for s in server.stats) <= WINDOW  # no request overflowed
