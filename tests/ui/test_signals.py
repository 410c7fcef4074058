"""emit() keeps Python's reference counts intact even where PySide's SignalInstance.emit does not."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal

from ui.signals import emit


class Source(QObject):
    changed = Signal(object)


def test_emitting_many_times_leaves_the_refcount_of_true_unchanged(qapp) -> None:
    source = Source()
    received: list[object] = []
    source.changed.connect(received.append)
    before = sys.getrefcount(True)
    for i in range(20_000):
        emit(source.changed, i)
    assert len(received) == 20_000
    assert abs(sys.getrefcount(True) - before) < 50


def test_the_installed_qt_binding_keeps_reference_counts_straight(qapp) -> None:
    from ui.signals import binding_problem

    assert binding_problem() is None


def test_void_qt_calls_do_not_release_none(qapp) -> None:
    source = Source()
    before = sys.getrefcount(None)
    for _ in range(5_000):
        source.setObjectName("x")
    assert abs(sys.getrefcount(None) - before) < 50
