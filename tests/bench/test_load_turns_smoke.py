"""The load benchmark's contention run, small: 2 processes × 2 turns on one conversation, checked end to end (the
full run is 4 × 50: `python -m bench.load_turns`)."""

from __future__ import annotations

from bench.load_turns import render, run


def test_two_processes_two_turns_each_lose_and_misplace_nothing_and_the_report_says_so() -> None:
    result = run(processes=2, turns=2, chunk_pause=0.0)
    assert (result["questions_stored"], result["replies"]) == (4, 4)
    assert result["lost"] == result["misplaced"] == result["fillers"] == result["broken_requests"] == 0
    assert result["errors"] == 0 and result["duplicates"] == 0 and result["requests"] == 4
    report = render(result, 0.0)
    assert "| misplaced replies (parent not its own question) | 0 | 0 |" in report
    assert "wait, when waiting: median / p90 / max" in report
