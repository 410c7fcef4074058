"""The replay benchmark's results: one table row per strategy (Markdown) and the context-per-turn plot."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.replay_run import RunResult

PLOTTED = ("naive", "truncate+compact", "+pruning", "full")
COLORS = {"naive": "#c0392b", "naive (unlimited window)": "#e6b0aa", "truncate+compact": "#2980b9",
          "+pruning": "#8e44ad", "full": "#27ae60"}


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


@dataclass(frozen=True)
class Row:
    """The numbers of one table row."""

    name: str
    errors: int
    first_error: int | None
    requests: int
    refused: int
    input_tokens: int
    cached_tokens: int
    compactions: int
    summary_tokens: int
    largest_share: float
    recall_correct: int
    recall_total: int
    overhead_median: float
    overhead_p95: float
    cpu_median: float
    engine_median: float
    preload_median: float
    preload_p95: float
    preload_cpu_median: float
    preload_engine_median: float
    preload_errors: int

    @property
    def cache_share(self) -> float:
        """Cache reads over billed input tokens."""
        return self.cached_tokens / self.input_tokens if self.input_tokens else 0.0


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


def row_of(result: RunResult) -> Row:
    """Summarizes one run (refused requests count as requests, not as billed input)."""
    billed = [r for r in result.records if not r.overflow]
    main = [r for r in result.records if r.kind == "chat"]
    largest = max((r.input_tokens for r in main), default=0)
    return Row(
        name=result.name, errors=result.errors, first_error=result.first_error_turn, requests=len(result.records),
        refused=sum(1 for r in result.records if r.overflow), input_tokens=sum(r.input_tokens for r in billed),
        cached_tokens=sum(r.cached_tokens for r in billed), compactions=result.compactions,
        summary_tokens=result.summary_tokens, largest_share=largest / result.window if result.window else 0.0,
        recall_correct=result.recall_correct, recall_total=result.recall_total,
        overhead_median=statistics.median(result.overhead_ms) if result.overhead_ms else 0.0,
        overhead_p95=percentile(result.overhead_ms, 95),
        cpu_median=_median(result.cpu_ms), engine_median=_median([t.engine_ms for t in result.turns]),
        preload_cpu_median=_median(result.preload_cpu_ms), preload_engine_median=_median(result.preload_engine_ms),
        preload_median=statistics.median(result.preload_overhead_ms) if result.preload_overhead_ms else 0.0,
        preload_p95=percentile(result.preload_overhead_ms, 95), preload_errors=result.preload_errors,
    )


def markdown_table(rows: Sequence[Row], baseline: Row | None, preload_messages: int = 10_000) -> str:
    """The results table; `baseline` (the unlimited naive run) gives the input-token ratio column."""
    head = (
        "| strategy | user-visible errors (first at turn) | requests (refused) | input tokens | vs unlimited naive "
        "| cache-read share | compactions | summary tokens | largest request / window | fact recall "
        f"| app overhead ms/turn: median / p95 (median CPU; engine) | same, session of {preload_messages:,} msgs |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for r in rows:
        first = f" (turn {r.first_error})" if r.first_error else ""
        ratio = f"{r.input_tokens / baseline.input_tokens:.1%}" if baseline and baseline.input_tokens else "-"
        recall = f"{r.recall_correct}/{r.recall_total} ({r.recall_correct / r.recall_total:.0%})" \
            if r.recall_total else "-"
        preload = f"{r.preload_median:.1f} / {r.preload_p95:.1f} ({r.preload_cpu_median:.1f}; " \
            f"{r.preload_engine_median:.2f})" if r.preload_median else "-"
        if r.preload_errors:
            preload += f" ({r.preload_errors} errors)"
        lines.append(
            f"| {r.name} | {r.errors}{first} | {r.requests} ({r.refused}) | {r.input_tokens:,} | {ratio} "
            f"| {r.cache_share:.1%} | {r.compactions} | {r.summary_tokens:,} | {r.largest_share:.0%} | {recall} "
            f"| {r.overhead_median:.1f} / {r.overhead_p95:.1f} ({r.cpu_median:.1f}; {r.engine_median:.2f}) "
            f"| {preload} |"
        )
    return "\n".join(lines)


@dataclass(frozen=True)
class Target:
    """One target of the full strategy, met or not, with the measured value."""

    label: str
    met: bool
    measured: str


def targets(full: Row, baseline: Row | None) -> list[Target]:
    """The issue's targets for the full strategy."""
    ratio = full.input_tokens / baseline.input_tokens if baseline and baseline.input_tokens else float("nan")
    recall = full.recall_correct / full.recall_total if full.recall_total else 0.0
    return [
        Target("0 user-visible errors", full.errors == 0, str(full.errors)),
        Target("input tokens <= 20% of the unlimited naive run", ratio <= 0.20, f"{ratio:.1%}"),
        Target("cache-read share >= 60%", full.cache_share >= 0.60, f"{full.cache_share:.1%}"),
        Target("fact recall 100%", recall == 1.0, f"{recall:.0%}"),
        Target("overhead <= 8 ms median at 10,000 messages", 0 < full.preload_median <= 8.0,
               f"{full.preload_median:.1f} ms wall minus the servers' CPU time ({full.preload_cpu_median:.1f} ms "
               f"CPU of the app's thread, of which estimate/prune/build {full.preload_engine_median:.2f} ms)"),
    ]


def targets_markdown(items: Sequence[Target]) -> str:
    """The targets as a checklist."""
    return "\n".join(f"- [{'x' if t.met else ' '}] {t.label}: measured {t.measured}" for t in items)


def plot(results: Sequence[RunResult], window: int, path: Path, title: str) -> None:
    """Context tokens sent per turn (the largest chat request of the turn, refused ones included)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(11, 5.5), dpi=110)
    top = window * 1.6
    for result in results:
        if result.name not in PLOTTED:
            continue
        xs = [t.index for t in result.turns if t.context_tokens]
        ys = [min(t.context_tokens, top) for t in result.turns if t.context_tokens]
        label = result.name if result.name != "naive" else "naive (attempted; refused above the window)"
        ax.plot(xs, ys, label=label, color=COLORS.get(result.name), linewidth=1.6)
        summarized = [t for t in result.turns if any(q.kind == "summary" for q in t.requests)]
        if summarized:
            ax.plot([t.index for t in summarized], [min(t.context_tokens, top) for t in summarized], "v",
                    color=COLORS.get(result.name), markersize=7, label=f"{result.name}: compaction after this turn")
        first = result.first_error_turn
        if first is not None:
            ax.axvline(first, color=COLORS.get(result.name), linestyle=":", linewidth=1)
            ax.annotate(f"{result.name}: first error at turn {first}", (first, window * 0.04), fontsize=8,
                        color=COLORS.get(result.name), rotation=90, va="bottom", ha="right")
    ax.axhline(window, color="black", linewidth=1.2, linestyle="-.", label=f"window ({window:,} tokens)")
    ax.set_ylim(0, top)
    ax.set_xlabel("turn")
    ax.set_ylabel("input tokens of the turn's largest request (o200k_base)")
    ax.set_title(title)
    ax.legend(loc="upper right", fontsize=8, framealpha=0.95)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def breakdown_table(results: Sequence[RunResult]) -> str:
    """Requests, billed input and cache reads by request kind (chat rounds, summaries, flush turns, title)."""
    lines = ["| strategy | kind | requests (refused) | input tokens | cache-read share |", "|---|---|---|---|---|"]
    for result in results:
        for kind in ("chat", "summary", "flush", "title"):
            records = [r for r in result.records if r.kind == kind]
            if not records:
                continue
            billed = [r for r in records if not r.overflow]
            tokens = sum(r.input_tokens for r in billed)
            cached = sum(r.cached_tokens for r in billed)
            share = f"{cached / tokens:.1%}" if tokens else "-"
            refused = len(records) - len(billed)
            lines.append(f"| {result.name} | {kind} | {len(records)} ({refused}) | {tokens:,} | {share} |")
    return "\n".join(lines)


def turns_json(results: Sequence[RunResult]) -> dict[str, list[dict[str, object]]]:
    """Per strategy, per turn: context tokens, error, app-side overhead."""
    return {
        r.name: [{"turn": t.index, "context_tokens": t.context_tokens, "error": t.error,
                  "overhead_ms": round(t.overhead_ms, 2), "cpu_ms": round(t.cpu_ms, 2),
                  "engine_ms": round(t.engine_ms, 3),
                  "requests": [[q.kind, q.input_tokens, q.cached_tokens, q.overflow] for q in t.requests]}
                 for t in r.turns]
        for r in results
    }
