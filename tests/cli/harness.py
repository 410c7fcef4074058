"""Runs `palimpsest` for tests: in a subprocess (the real thing) or in-process through app.main.main."""

from __future__ import annotations

import contextlib
import gc
import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import keyring

from tests.file_keyring import ENV_VAR as KEYRING_FILE_VAR
from tests.file_keyring import FileKeyring
from tests.serving import serving

ROOT = Path(__file__).resolve().parents[2]
# the warning a turn starts with when its model's vendor retires it within 30 days (or has): whether it is said
# depends on the day a test runs, not on what the test checks (tests/cli/test_model_retirement*.py check it)
RETIREMENT_NOTICE = re.compile(r" (?:retires on \d{1,2} [A-Z][a-z]+ \d{4} \((?:in \d+ days|tomorrow)\)|"
                               r"was retired on \d{1,2} [A-Z][a-z]+ \d{4}): ")


def unretired(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """JSON-lines events without the retirement warning (see RETIREMENT_NOTICE)."""
    return [e for e in events if not (e.get("type") == "warning" and RETIREMENT_NOTICE.search(str(e.get("message"))))]


@dataclass(frozen=True)
class CliResult:
    """Exit status and both output streams of one command."""

    code: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        """Standard error's lines without the retirement warning (see RETIREMENT_NOTICE)."""
        return [line for line in self.err.splitlines()
                if not (line.startswith("palimpsest: warning: ") and RETIREMENT_NOTICE.search(line))]


class Cli:
    """Runs commands against one PALIMPSEST_HOME with the file keyring; `subprocess=False` runs in-process."""

    def __init__(self, home: Path, keyring_file: Path, extra_env: Mapping[str, str] | None = None) -> None:
        self.home = home
        self.keyring_file = keyring_file
        self.env = {
            **os.environ,
            "PALIMPSEST_HOME": str(home),
            "PYTHON_KEYRING_BACKEND": "tests.file_keyring.FileKeyring",
            KEYRING_FILE_VAR: str(keyring_file),
            "PYTHONIOENCODING": "utf-8",
            **(extra_env or {}),
        }

    def run(self, *args: str, stdin: str = "", subprocess_run: bool = True) -> CliResult:
        """Runs `palimpsest ARGS`; standard input is `stdin`."""
        if subprocess_run:
            done = subprocess.run(
                [sys.executable, "-m", "app", *args], env=self.env, cwd=ROOT, input=stdin,
                capture_output=True, text=True, encoding="utf-8", timeout=120,
            )
            return CliResult(done.returncode, done.stdout, done.stderr)
        return self._in_process(args, stdin)

    def _in_process(self, args: tuple[str, ...], stdin: str) -> CliResult:
        from app.main import main

        out, err = io.StringIO(), io.StringIO()
        saved_env = {k: os.environ.get(k) for k in self.env}
        previous = keyring.get_keyring()
        os.environ.update(self.env)
        keyring.set_keyring(FileKeyring())
        saved_stdin = sys.stdin
        sys.stdin = io.StringIO(stdin)
        # Garbage of earlier tests in this process (an SDK client a test never closed) is collected now, before the
        # command's log handler writes to `err`: collected during the run, it would print "Unclosed client session"
        # into this command's standard error (tests/cli/test_sdk_clients_closed.py).
        gc.collect()
        _freeze_new_imports()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(list(args))
        finally:
            # SDK clients left from this run must be collected now, with no loop running (as at a process's
            # exit); collected during a later run's loop, they would schedule their aclose on that loop.
            gc.collect()
            _freeze_new_imports()
            sys.stdin = saved_stdin
            keyring.set_keyring(previous)
            for key, value in saved_env.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        return CliResult(code, out.getvalue(), err.getvalue())


_modules_when_frozen: list[int] = [0]


def _freeze_new_imports() -> None:
    """Right after a full collection, when modules were imported since the last time: moves what is alive now (mostly
    the imported modules: SDKs, SQLAlchemy, Alembic, about 300,000 objects) out of the collector's reach, as
    app.main does for a command of its own process. Each of the two full collections per run then scans only what
    was made since (milliseconds, not a fifth of a second each); nothing made by a command is frozen before it is
    collected."""
    if len(sys.modules) > _modules_when_frozen[0]:
        gc.freeze()
        _modules_when_frozen[0] = len(sys.modules)


class PageServer:
    """Serves generated pages on 127.0.0.1: /text/N (100 KB of text) and /html/N (100 KB of HTML)."""

    PAGE_BYTES = 100 * 1024

    def __init__(self) -> None:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _page_handler(self.PAGE_BYTES))
        self._httpd.daemon_threads = True

    @property
    def url(self) -> str:
        """http://127.0.0.1:PORT"""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @contextlib.contextmanager
    def running(self) -> Iterator[PageServer]:
        """Serves from a daemon thread until the block ends."""
        with serving(self._httpd):
            yield self


def page_text(n: int, size: int) -> str:
    """A deterministic page of readings, `size` characters long."""
    lines = []
    total = 0
    i = 0
    while total < size:
        line = f"page {n} reading {i:05d}: tide level {(i * 37 % 500) / 100:.2f} m at berth {i % 12}\n"
        lines.append(line)
        total += len(line)
        i += 1
    return "".join(lines)[:size]


def _page_handler(size: int) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

        def do_GET(self) -> None:
            kind, _, number = self.path.strip("/").partition("/")
            n = int(number or 0)
            if kind == "html":
                row = "<tr><td>{i}</td><td>tide {i}</td></tr>"
                head = f"<html><head><title>Page {n}</title><script>var x = {n};</script></head><body><table>"
                rows, i = [], 0
                while len(head) + sum(map(len, rows)) < size:
                    rows.append(row.format(i=i))
                    i += 1
                body = (head + "".join(rows) + "</table></body></html>").encode()
                content_type = "text/html; charset=utf-8"
            else:
                body = page_text(n, size).encode()
                content_type = "text/plain; charset=utf-8"
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler
