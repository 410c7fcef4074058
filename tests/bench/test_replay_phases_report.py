"""bench.replay_phases' report: the ratio per turn, by kind of turn, and over the summed CPU."""

from __future__ import annotations

from bench.replay_phases import PHASES, SDK, report, run_ratio, runs_line


def test_the_report_gives_the_median_ratio_by_kind_and_the_ratio_of_the_sums() -> None:
    phases = {label: [0.1, 0.1, 0.1] for label, _ in PHASES}
    phases[SDK] = [4.0, 2.0, 10.0]
    cpu = [6.0, 3.0, 20.0]  # ratios 0.5, 0.5 (no tool call) and 1.0 (a tool call)
    text = report([1.0, 1.0, 1.0], cpu, phases, "cmd", [False, False, True])
    assert "turn by turn (target ≤ 0.5) | **0.50** |" in text
    assert "| app / SDK, turns without a tool call | median of their 2 ratios | 0.50 |" in text
    assert "| app / SDK, turns with a tool call | median of their 1 ratios | 1.00 |" in text
    assert "summed over the turns | 0.81 |" in text  # (29 - 16) / 16


def test_several_runs_are_summed_up_by_their_figures_median_and_how_many_meet_the_target() -> None:
    assert run_ratio([6.0, 3.0, 20.0], [4.0, 2.0, 10.0]) == 0.5  # the report's headline figure, per run
    line = runs_line([0.48, 0.51, 0.47, 0.50])
    assert "0.48 / 0.51 / 0.47 / 0.50; median 0.49, 3 of 4 at or under 0.5" in line
