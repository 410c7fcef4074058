"""Sync now: applies the other devices' new change files, then writes this device's changes as one new file."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from domain.sync.errors import DeviceCopied, RemoteError, RemoteMissing
from domain.sync.ports import Cipher, Remote, Replica
from domain.sync.records import ChangeFile, CorruptFile, decode, encode

DEVICES = "devices/"
BLOBS = "blobs/"
SNAPSHOT_EVERY = 50  # change files of this device between two of its snapshots
_NAME = re.compile(r"^devices/([A-Za-z0-9_-]+)/([cs])(\d{10})$")


def change_name(device: str, seq: int) -> str:
    return f"{DEVICES}{device}/c{seq:010d}"


def snapshot_name(device: str, seq: int) -> str:
    return f"{DEVICES}{device}/s{seq:010d}"


@dataclass(frozen=True)
class SyncReport:
    """What one sync did."""

    received: int  # change files applied
    sent: int  # changes written
    bytes_sent: int
    notices: tuple[str, ...]
    skipped: tuple[str, ...]  # remote files that could not be read (torn, foreign, another key): tried again next time


@dataclass
class _Listing:
    changes: dict[str, list[int]]
    snapshots: dict[str, list[int]]


def _listing(names: Sequence[str]) -> _Listing:
    found = _Listing({}, {})
    for name in names:
        match = _NAME.match(name)
        if match:
            device, kind, seq = match.group(1), match.group(2), int(match.group(3))
            (found.changes if kind == "c" else found.snapshots).setdefault(device, []).append(seq)
    for seqs in (*found.changes.values(), *found.snapshots.values()):
        seqs.sort()
    return found


class SyncNowUseCase:
    """One sync with one remote: pull (apply everything new), then push (one new immutable file of this device)."""

    def __init__(self, remote: Remote, cipher: Cipher, replica: Replica) -> None:
        self._remote, self._cipher, self._replica = remote, cipher, replica
        self._scratch = f"{DEVICES}{replica.device}/"  # where this device's uploads are written aside

    def __call__(self) -> SyncReport:
        listing = _listing(self._remote.list(DEVICES))
        self._check_own(listing)
        self._remote.sweep(self._scratch)
        received, notices, skipped = self._pull(listing)
        sent, sent_bytes = self._push(listing)
        return SyncReport(received, sent, sent_bytes, notices, skipped)

    def _check_own(self, listing: _Listing) -> None:
        """DeviceCopied (before anything changes) when a file under this device's id past what it wrote is not
        from its own push cut short."""
        written = self._replica.written()
        if written is None:
            return
        me = self._replica.device
        for seq in listing.changes.get(me, []):
            if seq <= written.seq:
                continue
            try:
                nonce = self._read(change_name(me, seq)).nonce
            except CorruptFile:
                continue  # unreadable here: not evidence either way
            if nonce != written.nonce:
                raise DeviceCopied(me)

    def _read(self, name: str) -> ChangeFile:
        return decode(self._cipher.open(name, self._remote.get(name)))

    def _pull(self, listing: _Listing) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
        me = self._replica.device
        applied = dict(self._replica.applied())
        files: list[ChangeFile] = []
        skipped: list[str] = []
        if not applied:
            files += self._newest_snapshot(listing, skipped)
            for f in files:
                applied.update(f.covers)
        for device, seqs in sorted(listing.changes.items()):
            if device == me:
                continue
            newer = [seq for seq in seqs if seq > applied.get(device, 0)]
            if newer and newer[0] > applied.get(device, 0) + 1:  # the files between were pruned: their snapshot
                snapshot = self._catch_up(listing, device, newer[0] - 1, skipped)
                if snapshot is None:
                    continue
                files.append(snapshot)
                for other, seq in snapshot.covers.items():
                    applied[other] = max(applied.get(other, 0), seq)
                newer = [seq for seq in newer if seq > applied[device]]
            for seq in newer:
                name = change_name(device, seq)
                try:
                    files.append(self._read(name))
                except (CorruptFile, RemoteMissing):  # torn, another key, or pruned since the listing
                    skipped.append(name)
                    break  # a device's files apply in its order: the rest wait for this one
        if not files:
            return 0, (), tuple(skipped)
        self._fetch_blobs(files)
        done = self._replica.apply(files)
        return len([f for f in files if not f.snapshot]), done.notices, tuple(skipped)

    def _newest_snapshot(self, listing: _Listing, skipped: list[str]) -> list[ChangeFile]:
        candidates = sorted(((seqs[-1], device) for device, seqs in listing.snapshots.items()
                             if device != self._replica.device), reverse=True)
        for seq, device in candidates:
            name = snapshot_name(device, seq)
            try:
                return [self._read(name)]
            except (CorruptFile, RemoteMissing):
                skipped.append(name)
        return []

    def _catch_up(self, listing: _Listing, device: str, through: int, skipped: list[str]) -> ChangeFile | None:
        """The device's newest snapshot, when it covers its files up to `through` (pruned from the remote)."""
        seqs = listing.snapshots.get(device, [])
        if not seqs or seqs[-1] < through:
            skipped.append(change_name(device, through))
            return None
        name = snapshot_name(device, seqs[-1])
        try:
            return self._read(name)
        except (CorruptFile, RemoteMissing):
            skipped.append(name)
            return None

    def _fetch_blobs(self, files: Sequence[ChangeFile]) -> None:
        wanted = {sha for f in files for sha in f.blobs if not self._replica.has_blob(sha)}
        if not wanted:
            return
        present = set(self._remote.list(BLOBS))
        for sha in sorted(wanted):
            name = BLOBS + self._cipher.blob_name(sha)
            if name not in present:
                continue  # the sending device could not upload it: the message keeps its metadata
            try:
                self._replica.write_blob(sha, self._cipher.open(name, self._remote.get(name)))
            except CorruptFile:
                continue

    def _push(self, listing: _Listing) -> tuple[int, int]:
        me = self._replica.device
        pending = self._replica.pending()
        if not pending.changes:
            return 0, 0
        sent = self._put_blobs(pending.blobs)
        seq = max([0, *listing.changes.get(me, []), *listing.snapshots.get(me, [])]) + 1
        name = change_name(me, seq)
        nonce = self._replica.begin_push()
        data = self._cipher.seal(name, encode(ChangeFile(me, seq, pending.changes, blobs=pending.blobs, nonce=nonce)))
        while not self._remote.put(name, data, self._scratch):  # a file of ours from a sync cut short after its upload
            seq += 1
            name = change_name(me, seq)
            data = self._cipher.seal(name, encode(ChangeFile(me, seq, pending.changes, blobs=pending.blobs,
                                                             nonce=nonce)))
        self._replica.mark_pushed(pending, seq)
        sent += len(data)
        snaps = listing.snapshots.get(me, [])
        if seq - (snaps[-1] if snaps else 0) >= SNAPSHOT_EVERY:
            written = self._put_snapshot(seq)
            sent += written
            if written and snaps:
                self._prune(listing, snaps[-1])
        return len(pending.changes), sent

    def _prune(self, listing: _Listing, through: int) -> None:
        """Deletes this device's change files up to its previous snapshot (`through`) and its older snapshots: the
        newest snapshot covers them, and a device that had not applied them catches up from it."""
        me = self._replica.device
        names = [change_name(me, seq) for seq in listing.changes.get(me, []) if seq <= through]
        names += [snapshot_name(me, seq) for seq in listing.snapshots.get(me, []) if seq <= through]
        try:
            for name in names:
                self._remote.delete(name)
        except RemoteError:
            return  # left for the next snapshot's pruning

    def _put_blobs(self, blobs: Sequence[str]) -> int:
        if not blobs:
            return 0
        present = set(self._remote.list(BLOBS))
        sent = 0
        for sha in blobs:
            name = BLOBS + self._cipher.blob_name(sha)
            if name in present or not self._replica.has_blob(sha):
                continue
            data = self._cipher.seal(name, self._replica.read_blob(sha))
            if self._remote.put(name, data, self._scratch):
                sent += len(data)
        return sent

    def _put_snapshot(self, seq: int) -> int:
        me = self._replica.device
        covers = {**self._replica.applied(), me: seq}
        name = snapshot_name(me, seq)
        state = self._replica.state()  # its blobs named too: a device that starts from it fetches them
        data = self._cipher.seal(name, encode(ChangeFile(me, seq, state, snapshot=True, covers=covers,
                                                         blobs=self._replica.blobs_of(state))))
        return len(data) if self._remote.put(name, data, self._scratch) else 0
