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
