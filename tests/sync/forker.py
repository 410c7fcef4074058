"""Runs `palimpsest` commands as real processes without paying the interpreter's start-up each time: one helper
process imports the app once, then forks a child per command, which runs app.main.main(argv) in its own data folder
and exits (a SIGKILL it sends itself ends it as any other). The helper is single-threaded, so forking it is safe."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.cli.harness import ROOT

_HELPER = r"""
import json, os, sys
import app.cli.sync_cmd, app.container, app.main, app.sync_service  # imported once, before any fork
for line in sys.stdin:
    request = json.loads(line)
    pid = os.fork()
    if pid == 0:
        os.environ.update(request["env"])
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        os.dup2(os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False)
        status = 70
        try:
            status = app.main.main(request["argv"])
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    print(json.dumps(os.waitstatus_to_exitcode(status)), flush=True)
"""


class Forker:
    """The helper process; `run` forks one command and returns its exit status (negative: the signal that ended
    it) and its standard error."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._process = subprocess.Popen([sys.executable, "-c", _HELPER], cwd=ROOT, env=dict(env),
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, argv: Sequence[str], env: Mapping[str, str], stderr: Path) -> tuple[int, str]:
        assert self._process.stdin is not None and self._process.stdout is not None
        request = {"argv": list(argv), "env": dict(env), "stderr": str(stderr)}
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        status = int(json.loads(self._process.stdout.readline()))
        return status, stderr.read_text(errors="replace")

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(timeout=30)
