"""The tiktoken reference encodings ship in tests/tokenizers/, so tests and benchmarks never need the network."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakeservers.tokens import SHIPPED_ENCODINGS

ROOT = Path(__file__).resolve().parents[2]
DEAD_PROXY = "http://127.0.0.1:9"  # the discard port: nothing listens, so any download attempt fails at once


def _offline_env(tmp_path: Path) -> dict[str, str]:
    """The process environment without a tiktoken cache and with every HTTP(S) request sent to a dead proxy."""
    env = {k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")}
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        env[name] = DEAD_PROXY
    env.pop("NO_PROXY", None)
    env.pop("no_proxy", None)
    env["TMPDIR"] = str(tmp_path)  # tiktoken's default cache folder lives under it: an empty one here
    return env


def test_each_shipped_file_matches_the_hash_in_its_readme():
    readme = (SHIPPED_ENCODINGS / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| ([0-9a-f]{40}) \| (\w+).*?\| ([0-9a-f]{64}) \|$", readme, re.M)
    assert {name for _, name, _ in rows} == {"o200k_base", "cl100k_base"}
    for cache_name, _, sha256 in rows:
        assert hashlib.sha256((SHIPPED_ENCODINGS / cache_name).read_bytes()).hexdigest() == sha256
    assert "MIT License" in (SHIPPED_ENCODINGS / "LICENSE-tiktoken").read_text(encoding="utf-8")


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_tiktoken_loads_the_shipped_encoding_with_no_cache_set_and_no_network(tmp_path: Path, encoding: str):
    code = (
        "from tests.fakeservers.tokens import use_shipped_encodings\n"
        "use_shipped_encodings()\n"
        "import tiktoken\n"
        f"print(len(tiktoken.get_encoding({encoding!r}).encode('Hello there, general Kenobi.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=_offline_env(tmp_path), cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert 0 < int(done.stdout) < 12
    assert not any(tmp_path.iterdir()), "tiktoken wrote a cache of its own: it did not use the shipped files"


def test_the_fake_servers_token_counter_works_offline_without_any_set_up(tmp_path: Path):
    code = "from tests.fakeservers.tokens import o200k_counter\nprint(o200k_counter('Hello there, general Kenobi.'))\n"
    done = subprocess.run([sys.executable, "-c", code], env=_offline_env(tmp_path), cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert 0 < int(done.stdout) < 12


def test_the_app_never_imports_tiktoken():
    for package in ("app", "data", "domain", "ui"):
        for source in (ROOT / package).rglob("*.py"):
            assert "tiktoken" not in source.read_text(encoding="utf-8"), f"{source} uses tiktoken"
