"""Benchmark part: peak memory (RSS) of `palimpsest import` on a 200 MB ChatGPT export and on a zip bomb (a 1 MB-class
.zip holding 1 GiB of JSON). Both files are generated at run time into a temporary folder and removed after; nothing
is committed. Run alone: .venv/bin/python -m bench.load_memory [--megabytes 200]"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from bench.load_cli import ROOT, cli_env

GIB = 1 << 30
Row = tuple[str, str, str, str]


def _conversation(n: int, turns: int, text: str) -> dict[str, object]:
    """One ChatGPT-shaped conversation: a chain of `turns` questions and answers."""
    mapping: dict[str, object] = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    parent = "root"
    for t in range(turns * 2):
        nid = f"c{n}m{t}"
        role = "user" if t % 2 == 0 else "assistant"
        mapping[nid] = {"id": nid, "parent": parent, "children": [], "message": {
            "id": nid, "author": {"role": role}, "create_time": 1_714_000_000 + n * 1000 + t,
            "content": {"content_type": "text", "parts": [f"{role} {n}/{t} {text}"]}}}
        parent = nid
    return {"title": f"Conversation {n}", "create_time": 1_714_000_000 + n * 1000, "mapping": mapping,
            "current_node": parent, "id": f"bench-{n}"}


def write_export(path: Path, megabytes: int, turns: int = 25, chars: int = 2_000) -> int:
    """A ChatGPT export of about `megabytes` MB written one conversation at a time; returns its conversations."""
    text = ("lorem ipsum dolor sit amet " * (chars // 27 + 1))[:chars]
    count = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        while out.tell() < megabytes * 1_000_000:
            out.write(("," if count else "") + json.dumps(_conversation(count, turns, text)))
            count += 1
        out.write("]")
    return count


def write_bomb(path: Path, size: int = GIB) -> int:
    """A .zip whose conversations.json is `size` bytes of valid JSON (one conversation repeated); its own size."""
    one = json.dumps(_conversation(0, 5, "x" * 2_000)).encode()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive, \
            archive.open("conversations.json", "w", force_zip64=True) as member:
        member.write(b"[")
        written = 1
        while written + len(one) + 2 <= size:
            member.write(one + b",")
            written += len(one) + 1
        member.write(b"{}" + b" " * (size - written - 3) + b"]")
    return path.stat().st_size


_MEASURE = """
import json, os, subprocess, sys, time
started = time.perf_counter()
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
output = process.stdout.read()
_pid, status, usage = os.wait4(process.pid, 0)
print(json.dumps([usage.ru_maxrss // 1024, time.perf_counter() - started, os.waitstatus_to_exitcode(status),
                  (output.strip().splitlines() or [""])[-1]]))
"""


def peak_import(home: Path, kind: str, path: Path) -> tuple[int, float, int, str]:
    """(peak RSS in MB, seconds, exit status, last line of output) of `palimpsest import KIND PATH`. It is started
    by a small Python process of its own: Linux counts a child's peak from the process that spawned it, so a large
    parent (a test run) would be counted in."""
    done = subprocess.run([sys.executable, "-c", _MEASURE, sys.executable, "-m", "app", "import", kind, str(path)],
                          env=cli_env(home, None), cwd=ROOT, capture_output=True, text=True, check=True)
    rss, seconds, code, last = json.loads(done.stdout)
    return int(rss), float(seconds), int(code), str(last)


def memory_rows(megabytes: int = 200) -> list[Row]:
    """The two imports' peak memory, as rows of the load table."""
    work = Path(tempfile.mkdtemp(prefix="palimpsest-import-memory-"))
    try:
        export = work / "conversations.json"
        conversations = write_export(export, megabytes)
        size_mb = export.stat().st_size / 1e6
        rss, seconds, code, last = peak_import(work / "home", "chatgpt", export)
        rows: list[Row] = [(f"import of a {size_mb:.0f} MB ChatGPT export ({conversations:,} conversations): peak RSS",
                            f"{rss} MB in {seconds:.0f} s (exit {code}: {last[:60]})", "≤ 300 MB",
                            "met" if rss <= 300 and code == 0 else "NOT met")]
        export.unlink()
        bomb = work / "bomb.zip"
        zipped = write_bomb(bomb)
        rss, seconds, code, last = peak_import(work / "home2", "chatgpt", bomb)
        rows.append((f"import of a {zipped / 1e6:.1f} MB zip holding 1 GiB of JSON: peak RSS",
                     f"{rss} MB in {seconds:.1f} s (exit {code}: {last[:90]})", "≤ 300 MB, refused",
                     "met" if rss <= 300 and code != 0 else "NOT met"))
        return rows
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """Prints the two rows as a Markdown table."""
    parser = argparse.ArgumentParser(prog="python -m bench.load_memory", description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=200, help="the size of the generated export")
    args = parser.parse_args(argv)
    print("| measure | result | target | |\n|---|--:|--:|---|")
    for what, result, target, met in memory_rows(args.megabytes):
        print(f"| {what} | {result} | {target} | {met} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
