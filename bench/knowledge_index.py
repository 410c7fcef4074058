"""Knowledge-folder benchmark: index a folder of 2,000 generated Markdown files, index it again unchanged, after one
file changed, and after one was deleted; then search it. The folder is generated at run time in a temporary directory
and removed after. Run from the repository root: `.venv/bin/python -m bench.knowledge_index [--files 2000]`; writes
bench/results/knowledge_index.md."""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from data.db.agents import DEFAULT_AGENT_ID
from data.documents.knowledge import KnowledgeIndexer
from data.storage import Storage

WORDS = ("pump", "valve", "hull", "engine", "rudder", "keel", "anchor", "winch", "sail", "mast", "boom", "cleat",
         "bilge", "filter", "impeller", "gasket", "hose", "clamp", "battery", "alternator", "fuse", "relay", "gauge",
         "sensor", "bracket", "bolt", "torque", "seal", "bearing", "shaft", "propeller")
RESULTS = Path(__file__).resolve().parent / "results" / "knowledge_index.md"


def write_folder(root: Path, files: int, seed: int = 30) -> int:
    """`files` Markdown notes of 3-6 sections each (about 2-4 KB), in 20 subfolders; returns their bytes."""
    rng = random.Random(seed)
    total = 0
    for n in range(files):
        sections = []
        for s in range(rng.randint(3, 6)):
            body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(60, 110)))
            sections.append(f"## Section {s + 1} of note {n}\n{body}.\n")
        text = f"# Note {n}\nFact {n}: the part number of note {n} is PN-{n:05d}.\n\n" + "\n".join(sections)
        path = root / f"topic{n % 20:02d}" / f"note{n:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        total += len(text.encode())
    return total


def run(files: int) -> list[tuple[str, str, str]]:
    """Timings of each pass as (step, seconds, what it did)."""
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="palimpsest-kb-") as tmp:
        root = Path(tmp) / "kb"
        size = write_folder(root, files)
        storage = Storage.open(Path(tmp) / "home")
        try:
            indexer = KnowledgeIndexer(storage.documents)

            def timed(step: str, action: object) -> None:
                start = time.perf_counter()
                report = action()  # type: ignore[operator]
                seconds = time.perf_counter() - start
                line = report.line if hasattr(report, "line") else report[0].line
                rows.append((step, f"{seconds:.2f}", line.split(": ", 1)[1]))

            timed(f"first index ({files:,} files, {size / 1e6:.1f} MB)", lambda: indexer.add(DEFAULT_AGENT_ID, root))
            timed("re-index, nothing changed", lambda: indexer.reindex(DEFAULT_AGENT_ID))
            changed = root / "topic07" / "note00007.md"
            changed.write_text(changed.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
            timed("re-index, one file changed", lambda: indexer.reindex(DEFAULT_AGENT_ID))
            (root / "topic08" / "note00008.md").unlink()
            timed("re-index, one file deleted", lambda: indexer.reindex(DEFAULT_AGENT_ID))
            start = time.perf_counter()
            hits = storage.documents.search("part number PN-01234", "none", DEFAULT_AGENT_ID)
            seconds = time.perf_counter() - start
            best = hits[0].where if hits else "nothing"
            rows.append(("search \"part number PN-01234\"", f"{seconds:.3f}", f"best: {best}"))
            gone = storage.documents.find("none", DEFAULT_AGENT_ID, "topic08/note00008.md")
            rows.append(("the deleted file in the index", "-", "gone" if gone is None else "still there"))
            files_in, passages = storage.documents.counts(DEFAULT_AGENT_ID, str(root.resolve()))
            rows.append(("index holds", "-", f"{files_in:,} files, {passages:,} passages"))
        finally:
            storage.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=2000)
    args = parser.parse_args()
    rows = run(args.files)
    table = ["| step | seconds | result |", "|---|--:|---|"] + [f"| {a} | {b} | {c} |" for a, b, c in rows]
    RESULTS.write_text("# Knowledge folder indexing\n\n" + "\n".join(table) + "\n", encoding="utf-8")
    print("\n".join(table))


if __name__ == "__main__":
    main()
