"""Document replay: 20 questions about an 800-page PDF (20 facts planted on known pages) in one conversation with a
32K-window model, through the real container, Anthropic SDK adapter and the fake server (which bills each PDF page as
its image plus its text and refuses a request past the window). The model reads on demand: it searches, reads the best
page and answers citing it. Reported: the requests' sizes against sending the whole document with every question.

Run from the repository root: `.venv/bin/python -m bench.replay_documents`; writes bench/results/replay_documents.md.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
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


def planted(seed: int = 30) -> dict[int, tuple[str, str]]:
    """page -> (question words, fact) for QUESTIONS pages chosen at random."""
    rng = random.Random(seed)
    pages = sorted(rng.sample(range(2, PAGES + 1), QUESTIONS))
    return {page: (f"calibration code unit {n + 1:02d}x", f"The calibration code of unit {n + 1:02d}x is "
                   f"K{page * 7 % 9973:04d}.") for n, page in enumerate(pages)}


def run() -> list[str]:
    facts = planted()
    texts = [f"Service manual page {n}. {FILLER}{facts[n][1] if n in facts else ''} {FILLER}"
             for n in range(1, PAGES + 1)]
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
        "# Document replay: 20 questions about an 800-page PDF, 32K window",
        "",
        f"Document: 800 pages, {len(data):,} bytes; the fake server bills it whole at **{whole:,} tokens** "
        f"({whole / WINDOW:.1f}× the window: it cannot be sent whole to this model).",
        "",
        "| measure | value |",
        "|---|--:|",
        f"| questions answered with the planted fact and its page cited | {right} / {QUESTIONS} |",
        f"| errors | {errors} |",
        f"| requests (searches, reads, answers, titles) | {len(chat)} |",
        f"| largest request | {max(chat):,} tokens ({max(chat) / WINDOW:.0%} of the window) |",
        f"| median request | {int(statistics.median(chat)):,} tokens |",
        f"| input tokens sent in all | {sent:,} |",
        f"| sending the whole document with each question (were there a window for it) | {whole * QUESTIONS:,} |",
        f"| share | {sent / (whole * QUESTIONS):.1%} |",
        f"| wall time | {seconds:.1f} s |",
    ]


def main() -> None:
    lines = run()
    RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
