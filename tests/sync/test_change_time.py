"""Last writer wins by when a field was changed, not by when a sync sent it: a rename made earlier but synced later
loses to a later rename, whichever device syncs first."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from data.sync.folder import FolderRemote
from tests.sync.replicas import Store, until_quiet


def _next_millisecond() -> None:
    """Waits for the wall clock to pass into the next millisecond (so two edits are never stamped alike)."""
    start = int(time.time() * 1000)
    while int(time.time() * 1000) <= start:
        pass


def _title(store: Store) -> str:
    session = store.storage.sessions.get("s1")
    assert session is not None
    return session.title


@pytest.mark.parametrize("first", ["earlier editor", "later editor"])
def test_the_later_edit_wins_whichever_device_syncs_first(tmp_path: Path, first: str) -> None:
    a, b = Store(tmp_path / "a"), Store(tmp_path / "b")
    remote = FolderRemote(tmp_path / "remote")
    try:
        a.conversation("s1", "First title", ["q1", "a1"])
        until_quiet([a, b], remote)
        a.storage.sessions.update_fields("s1", title="Renamed on A at 10:00")
        _next_millisecond()
        b.storage.sessions.update_fields("s1", title="Renamed on B at 11:00")
        order = [a, b] if first == "earlier editor" else [b, a]
        for store in order:
            store.sync(remote)
        until_quiet(order, remote)
        assert _title(a) == _title(b) == "Renamed on B at 11:00"
        assert a.state() == b.state()
    finally:
        a.close()
        b.close()
