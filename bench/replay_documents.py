"""Document replay: 20 questions about an 800-page PDF (20 facts planted on known pages) in one conversation with a
32K-window model, through the real container, Anthropic SDK adapter and the fake server (which bills each PDF page as
its image plus its text and refuses a request past the window). The model reads on demand: it searches, reads the best
page and answers citing it. Reported: the requests' sizes against sending the whole document with every question.

Run from the repository root: `.venv/bin/python -m bench.replay --documents` (or `-m bench.replay_documents`); writes
bench/results/replay_documents.md. With `--quick`: 5 questions about a 100-page PDF, written to a temporary folder.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

from app.container import Container
from bench.replay_strategies import BenchKeys
from domain.documents import citations
from domain.events import ChatError, TextDelta
from tests.attachment_samples import pdf
from tests.cli.test_documents_e2e import FILLER, ReaderBrain
from tests.fakeservers import FakeAnthropicServer
from tests.fakeservers.media_rules import pdf_tokens

KEY = "sk-ant-bench-documents"
MODEL = "claude-docs-32k"
WINDOW = 32_000
PAGES, QUESTIONS = 800, 20
RESULTS = Path(__file__).resolve().parent / "results" / "replay_documents.md"


def planted(seed: int = 30, pages_in_all: int = PAGES, questions: int = QUESTIONS) -> dict[int, tuple[str, str]]:
    """page -> (question words, fact) for `questions` pages chosen at random."""
    rng = random.Random(seed)
    pages = sorted(rng.sample(range(2, pages_in_all + 1), questions))
    return {page: (f"calibration code unit {n + 1:02d}x", f"The calibration code of unit {n + 1:02d}x is "
                   f"K{page * 7 % 9973:04d}.") for n, page in enumerate(pages)}


def run(pages: int = PAGES, questions: int = QUESTIONS) -> list[str]:
    """Asks the questions; the report's lines."""
    facts = planted(pages_in_all=pages, questions=questions)
    texts = [f"Service manual page {n}. {FILLER}{facts[n][1] if n in facts else ''} {FILLER}"
             for n in range(1, pages + 1)]
    data = pdf(texts)
    whole = pdf_tokens("anthropic", data)
    brain = ReaderBrain()
    answers: list[str] = []
    errors = 0
    with tempfile.TemporaryDirectory(prefix="palimpsest-docs-") as tmp, \
            FakeAnthropicServer(brain, api_key=KEY, context_windows={MODEL: WINDOW}) as server:
        os.environ["ANTHROPIC_BASE_URL"] = server.base_url
        c = Container.build(Path(tmp) / "home", keys=BenchKeys({"anthropic": KEY}))
        try:
            c.add_model("anthropic", MODEL, WINDOW)
            session = c.create_session(provider_id="anthropic", model_id=MODEL)
            manual = c.attachments.from_bytes("manual.pdf", data)

            async def ask_all() -> None:
                nonlocal errors
                for index, (words, _fact) in enumerate(facts.values()):
                    reply = []
                    async for event in c.send_message(
                        session.id, f"Question {index + 1}: what does the manual say ABOUT {words}",
                        provider_id="anthropic", model_id=MODEL, attachments=(manual,) if index == 0 else ()):
                        if isinstance(event, TextDelta):
                            reply.append(event.text)
                        errors += isinstance(event, ChatError)
                    answers.append("".join(reply))
                await c.aclose_adapters()  # the SDK clients' connections belong to this loop

            start = time.perf_counter()
            asyncio.run(ask_all())
            seconds = time.perf_counter() - start
        finally:
            c.close()
    chat = [s.input_tokens for s in server.stats if s.input_tokens]
    right = sum(1 for (page, (_w, fact)), answer in zip(facts.items(), answers, strict=True)
                if fact in answer and citations(answer) == [("manual.pdf", page)])
    sent = sum(chat)
    return [
        f"# Document replay: {questions} questions about a PDF of {pages} pages, 32K window",
        "",
        f"Document: {pages} pages, {len(data):,} bytes; the fake server bills it whole at **{whole:,} tokens** "
        f"({whole / WINDOW:.1f}× the window{': it cannot be sent whole to this model' if whole > WINDOW else ''}).",
        "",
        "| measure | value |",
        "|---|--:|",
        f"| questions answered with the planted fact and its page cited | {right} / {questions} |",
        f"| errors | {errors} |",
        f"| requests (searches, reads, answers, titles) | {len(chat)} |",
        f"| largest request | {max(chat):,} tokens ({max(chat) / WINDOW:.0%} of the window) |",
        f"| median request | {int(statistics.median(chat)):,} tokens |",
        f"| input tokens sent in all | {sent:,} |",
        f"| sending the whole document with each question (were there a window for it) | {whole * questions:,} |",
        f"| share | {sent / (whole * questions):.1%} |",
        f"| wall time | {seconds:.1f} s |",
    ]


def main(quick: bool = False) -> Path:
    """Runs the full benchmark (or the quick one), writes its report and prints it; the report's path."""
    lines = run(100, 5) if quick else run()
    out = Path(tempfile.gettempdir()) / "palimpsest-replay-documents-quick.md" if quick else RESULTS
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return out


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
