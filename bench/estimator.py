"""Benchmark: the TokenEstimator and characters/4 against tiktoken's o200k_base on a mixed corpus, plus speed."""

from __future__ import annotations

import statistics
import sysconfig
import time
from pathlib import Path

from bench.corpus import corpus
from domain.context.estimator import TokenEstimator, chars_over_four
from domain.models import Message, MessageType
from tests.fakeservers.tokens import use_shipped_encodings

HOLDOUT_SEED = 99  # the weights were fitted on seed 20260101; the table is measured on unseen samples


def _encoder():  # type: ignore[no-untyped-def]
    use_shipped_encodings()  # the reference files shipped in tests/tokenizers/: no download
    import tiktoken

    return tiktoken.get_encoding("o200k_base")


def real_files() -> dict[str, list[str]]:
    """Out-of-corpus checks when present: the interpreter's own stdlib sources and its LICENSE text, in slices."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    out: dict[str, list[str]] = {}
    code = [stdlib / name for name in ("textwrap.py", "json/decoder.py", "argparse.py", "dataclasses.py")]
    if all(p.is_file() for p in code):
        out["stdlib .py"] = [p.read_text()[i : i + 6_000] for p in code for i in range(0, 60_000, 6_000)]
    license_file = stdlib / "LICENSE.txt"
    if license_file.is_file():
        text = license_file.read_text()
        out["license"] = [text[i : i + 4_000] for i in range(0, min(len(text), 40_000), 4_000)]
    return {k: [t for t in v if t.strip()] for k, v in out.items()}


def accuracy_table() -> list[tuple[str, float, float, float, float]]:
    """Per class: worst (lowest) and mean signed error of ours and of chars/4, in percent of the true count."""
    enc = _encoder()
    est = TokenEstimator()
    rows = []
    for name, samples in {**corpus(seed=HOLDOUT_SEED), **real_files()}.items():
        ours, naive = [], []
        for text in samples:
            truth = len(enc.encode(text, disallowed_special=()))
            ours.append((est.estimate_text(text) - truth) / truth * 100)
            naive.append((chars_over_four(text) - truth) / truth * 100)
        rows.append((name, min(ours), statistics.mean(ours), min(naive), statistics.mean(naive)))
    return rows


def session(n: int = 10_000) -> list[Message]:
    """A session of n messages of mixed sizes."""
    texts = [t for samples in corpus(samples_per_class=20, seed=7).values() for t in samples if len(t) <= 3_000]
    kinds = [MessageType.USER, MessageType.AI_RESPONSE]
    return [
        Message(id=f"m{i}", session_id="bench", type=kinds[i % 2], content=texts[i % len(texts)], seq=i + 1)
        for i in range(n)
    ]


def timing() -> tuple[float, float]:
    """Milliseconds to estimate a 10,000-message session cold (empty cache) and warm (median of 20 runs)."""
    msgs = session()
    est = TokenEstimator()
    start = time.perf_counter()
    est.estimate_messages(msgs)
    cold = (time.perf_counter() - start) * 1000
    runs = []
    for _ in range(20):
        start = time.perf_counter()
        est.estimate_messages(msgs)
        runs.append((time.perf_counter() - start) * 1000)
    return cold, statistics.median(runs)


def main() -> None:
    """Prints the accuracy table and the timing."""
    print("Token estimate vs tiktoken o200k_base, error in % of the true count (negative = underestimate);")
    print("'worst' is the lowest error of any sample in the class (>= 0 means it never underestimated)\n")
    print("| class      | ours: worst | ours: mean | chars/4: worst | chars/4: mean |")
    print("|------------|------------:|-----------:|---------------:|--------------:|")
    for name, worst, mean, nworst, nmean in accuracy_table():
        print(f"| {name:10s} | {worst:+10.1f}% | {mean:+9.1f}% | {nworst:+13.1f}% | {nmean:+12.1f}% |")
    cold, warm = timing()
    print(f"\n10,000-message session: {cold:.1f} ms cold, {warm:.2f} ms warm (cached per message)")


if __name__ == "__main__":
    main()
