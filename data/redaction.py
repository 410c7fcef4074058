"""A process-wide registry of secrets (API keys) and the redaction applied to every text that leaves the process.

Keys are registered as they are read (keychain, environment) or handed to an SDK adapter; `redact` replaces each
with REDACTED. Logging (RedactingFilter), tracebacks (format_exception), and the interpreter's last-resort hooks
(install_hooks) all pass through it, so a key echoed by a server into an SDK exception is never printed or logged.
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any

REDACTED = "[redacted]"
OWN_LOGGERS = ("app", "data", "domain", "ui")
MIN_SECRET_CHARS = 8  # shorter values (placeholders, test stubs) would redact ordinary words

_lock = threading.Lock()
_secrets: tuple[str, ...] = ()  # longest first, so a key that contains another is replaced whole


def register_secret(value: str | None) -> None:
    """Remembers a secret (stripped) so every later `redact` removes it; short or empty values are ignored."""
    global _secrets
    clean = (value or "").strip()
    if len(clean) < MIN_SECRET_CHARS:
        return
    with _lock:
        if clean not in _secrets:
            _secrets = tuple(sorted({*_secrets, clean}, key=len, reverse=True))


def known_secrets() -> tuple[str, ...]:
    """The registered secrets (for tests and diagnostics; never print them)."""
    return _secrets


def forget_secrets() -> None:
    """Empties the registry (tests only)."""
    global _secrets
    with _lock:
        _secrets = ()


def redact(text: str, *extra: str | None) -> str:
    """The text with every registered secret (and every `extra` one) replaced by REDACTED."""
    for secret in (*_secrets, *(e for e in extra if e and len(e) >= 4)):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def format_exception(error: BaseException) -> str:
    """The whole traceback of `error`, its causes and contexts included, with every secret redacted."""
    return redact("".join(traceback.format_exception(type(error), error, error.__traceback__)))


class RedactingFilter(logging.Filter):
    """Rewrites a log record so that its message, exception text and stack carry no registered secret.

    Attach it to handlers (a logger's own filters do not see records propagated from child loggers)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Always keeps the record, redacted."""
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class StderrHandler(logging.StreamHandler):
    """Writes redacted records to whatever sys.stderr is at the time of each record."""

    def __init__(self, level: int) -> None:
        super().__init__(sys.stderr)
        self.setLevel(level)
        self.addFilter(RedactingFilter())
        self.setFormatter(logging.Formatter("palimpsest [%(levelname)s] %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        """Emits to the current sys.stderr."""
        self.stream = sys.stderr
        super().emit(record)


@contextmanager
def redacted_output(debug: bool = False) -> Iterator[None]:
    """Within the block: log records go redacted to stderr (warnings and up; with `debug`, Palimpsest's own debug
    records too), in place of Python's bare last-resort output, and uncaught or unraisable exceptions are printed
    redacted. Everything is restored after the block."""
    root = logging.getLogger()
    handler = StderrHandler(logging.DEBUG if debug else logging.WARNING)
    own = [logging.getLogger(name) for name in OWN_LOGGERS] if debug else []
    saved = (sys.excepthook, threading.excepthook, sys.unraisablehook, logging.lastResort)
    levels = [logger.level for logger in own]
    root.addHandler(handler)
    for logger in own:
        logger.setLevel(logging.DEBUG)
    logging.lastResort = handler
    sys.excepthook, threading.excepthook, sys.unraisablehook = _excepthook, _thread_excepthook, _unraisablehook
    try:
        yield
    finally:
        root.removeHandler(handler)
        for logger, level in zip(own, levels, strict=True):
            logger.setLevel(level)
        sys.excepthook, threading.excepthook, sys.unraisablehook, logging.lastResort = saved


def _write(text: str) -> None:
    stream = sys.stderr
    if stream is not None:
        stream.write(text)
        stream.flush()


def _excepthook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
    _write(redact("".join(traceback.format_exception(kind, error, tb))))


def _thread_excepthook(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread is not None else "a thread"
    text = "".join(traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback))
    _write(redact(f"Exception in thread {name}:\n{text}"))


def _unraisablehook(unraisable: Any) -> None:
    what = unraisable.err_msg or "Exception ignored in"
    text = "".join(traceback.format_exception(unraisable.exc_type, unraisable.exc_value, unraisable.exc_traceback))
    _write(redact(f"{what}: {unraisable.object!r}\n{text}"))
