"""`python -m bench.replay --documents --quick` runs the document replay end to end: every question answered with its
planted fact and page, no error, no request past the window."""

from __future__ import annotations

import re

from bench.replay import main


def test_the_replays_documents_run_answers_every_question_from_its_page(capsys, monkeypatch) -> None:
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    assert main(["--documents", "--quick"]) == 0
    report = capsys.readouterr().out
    assert report.startswith("# Document replay: 5 questions about a PDF of 100 pages, 32K window")
    assert "| questions answered with the planted fact and its page cited | 5 / 5 |" in report
    assert "| errors | 0 |" in report
    largest = re.search(r"\| largest request \| [\d,]+ tokens \((\d+)% of the window\) \|", report)
    assert largest is not None and int(largest.group(1)) < 100
