"""`palimpsest ARGS` run as a subprocess on a pseudo-terminal: its standard input and error are the terminal (so it
asks its questions there), its standard output a pipe; a test waits for a prompt on the screen and types an answer."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from types import TracebackType

from tests.cli.harness import ROOT, Cli


class TerminalRun:
    """One command on a fresh pseudo-terminal; `screen` is what it wrote to standard error so far (CRLF as LF)."""

    def __init__(self, cli: Cli, *args: str) -> None:
        self._master, slave = pty.openpty()
        self.process = subprocess.Popen([sys.executable, "-m", "app", *args], env=cli.env, cwd=ROOT,
                                        stdin=slave, stderr=slave, stdout=subprocess.PIPE, text=True,
                                        encoding="utf-8")
        os.close(slave)
        self.screen = ""
        self._seen = 0  # where the next expect() starts looking

    def __enter__(self) -> TerminalRun:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
        if self.process.stdout is not None:
            self.process.stdout.close()
        os.close(self._master)

    def expect(self, text: str, timeout_s: float = 30.0) -> None:
        """Waits until `text` shows on the screen after what the last expect() found; fails with the screen."""
        deadline = time.monotonic() + timeout_s
        while (found := self.screen.find(text, self._seen)) < 0:
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(left):
                raise AssertionError(f"{text!r} did not show within {timeout_s} s; the screen:\n{self.screen}")
        self._seen = found + len(text)

    def type(self, text: str) -> None:
        os.write(self._master, text.encode())

    def finish(self, timeout_s: float = 60.0) -> tuple[int, str]:
        """The command's exit status and standard output, once it ended (the rest of the screen is read too)."""
        out, _ = self.process.communicate(timeout=timeout_s)
        while self._read(0.1):
            pass
        return self.process.returncode, out

    def _read(self, timeout_s: float) -> bool:
        ready, _, _ = select.select([self._master], [], [], timeout_s)
        if not ready:
            return False
        try:
            data = os.read(self._master, 65536)
        except OSError:  # the command ended and closed the terminal
            return False
        self.screen += data.decode("utf-8", "replace").replace("\r\n", "\n")
        return bool(data)
