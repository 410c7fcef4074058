"""An exclusive lock on a file, between processes: serializes creating, migrating and seeding the database."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

POLL_SECONDS = 0.05


class LockTimeout(Exception):
    """Another process held the lock for longer than the caller was willing to wait."""


class LockFileError(Exception):
    """The lock file could not be created or opened (a read-only folder, no permission)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@contextmanager
def exclusive_lock(path: Path, timeout: float = 60.0, on_busy: Callable[[], None] | None = None) -> Iterator[None]:
    """Holds an OS-level exclusive lock on `path` (created if missing, never deleted) for the block.

    The lock goes with the process: a process that dies while holding it releases it. LockFileError when the file
    cannot be created; LockTimeout after `timeout` seconds of waiting; `on_busy` is called once when the lock is
    held by another (before the wait)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise LockFileError(exc.strerror or str(exc)) from exc
    try:
        try:
            _acquire(fd, time.monotonic())
        except LockTimeout:
            if on_busy is not None:
                on_busy()
            _acquire(fd, time.monotonic() + timeout)
        try:
            yield
        finally:
            _release(fd)
    finally:
        os.close(fd)


if sys.platform == "win32":
    import msvcrt

    def _acquire(fd: int, deadline: float) -> None:
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                return
            except OSError:
                if time.monotonic() >= deadline:
                    raise LockTimeout(str(fd)) from None
                time.sleep(POLL_SECONDS)

    def _release(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _acquire(fd: int, deadline: float) -> None:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeout(str(fd)) from None
                time.sleep(POLL_SECONDS)

    def _release(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
