"""Emits Qt signals safely: PySide6 6.12's SignalInstance.emit returns a bool it does not own.

On Python 3.11 (where True and False are not immortal) every discarded `signal.emit(...)` result releases a
reference to True that was never taken, and after a few thousand emissions the interpreter aborts with
"bool_dealloc: deallocating True or False". emit() below gives the reference back when (and only when) the probe at
import time shows the bug.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from PySide6.QtCore import QObject, Signal

_incref = ctypes.pythonapi.Py_IncRef
_incref.argtypes = [ctypes.py_object]
_incref.restype = None


class _Probe(QObject):
    ping = Signal()


def _emit_steals_a_reference() -> bool:
    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(8):
        probe.ping.emit()
    lost = before - sys.getrefcount(True)
    for _ in range(max(0, lost)):  # repair what the probe itself broke
        _incref(True)
    return lost >= 8


EMIT_STEALS = _emit_steals_a_reference()


def emit(signal: Any, *args: Any) -> None:
    """signal.emit(*args), keeping the interpreter's reference counts intact."""
    result = signal.emit(*args)
    if EMIT_STEALS and isinstance(result, bool):
        _incref(result)


def binding_problem() -> str | None:
    """None when the Qt binding keeps reference counts straight, else a sentence saying how to fix the install.

    PySide6 6.12.0 returns None from void methods without taking a reference; on Python 3.11 the interpreter then
    aborts after a few thousand calls ("none_dealloc"), so the app refuses to start on it instead of crashing later.
    """
    import PySide6

    probe = _Probe()
    before = sys.getrefcount(None)
    for _ in range(16):
        probe.setObjectName("probe")  # a void method
    lost = before - sys.getrefcount(None)
    for _ in range(max(0, lost)):
        _incref(None)
    if lost >= 16:
        return (f"PySide6 {PySide6.__version__} has a reference-counting bug on Python "
                f"{sys.version_info.major}.{sys.version_info.minor} that crashes the app. "
                "Install a working version with: pip install 'pyside6-essentials>=6.7,<6.12'")
    return None
