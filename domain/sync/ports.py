"""What sync needs from the outside: a remote store of immutable files, a cipher, and the local replica."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from domain.sync.records import Change, ChangeFile


class Remote(Protocol):
    """A store of named, immutable files (a folder, WebDAV, S3): a file appears whole or not at all."""

    def list(self, prefix: str) -> Sequence[str]:
        """The names of the files under `prefix` (a folder path ending in /), sorted."""
        ...

    def get(self, name: str) -> bytes:
        """The bytes of one file; RemoteMissing if there is none, RemoteError if it cannot be read."""
        ...

    def put(self, name: str, data: bytes, scratch: str | None = None) -> bool:
        """Writes a file that does not exist yet, atomically; False (and nothing written) if it already exists.
        A remote that writes aside first does so in `scratch` (a folder of this device's) when given."""
        ...

    def sweep(self, folder: str) -> int:
        """Deletes what uploads cut short left aside in `folder` (this device's own); how many."""
        ...

    def delete(self, name: str) -> None:
        """Deletes a file (none of that name: nothing to do); RemoteError if it cannot."""
        ...


class Cipher(Protocol):
    """Seals what leaves the device and opens what comes back (the identity when the remote is not encrypted)."""

    encrypted: bool

    def seal(self, name: str, data: bytes) -> bytes: ...

    def open(self, name: str, data: bytes) -> bytes:
        """The plain bytes; CorruptFile if the file was changed, torn, or sealed with another key."""
        ...

    def blob_name(self, sha256: str) -> str:
        """The remote name of an attachment (a keyed hash when encrypted: the plain hash would say which file)."""
        ...


@dataclass(frozen=True)
class Pending:
    """The local changes not yet on the remote, with what marks them pushed once they are."""

    changes: tuple[Change, ...]
    blobs: tuple[str, ...]
    token: object  # handed back to Replica.mark_pushed


@dataclass(frozen=True)
class Applied:
    """What applying remote files did: counts and notices a person should read."""

    changes: int
    notices: tuple[str, ...]


@dataclass(frozen=True)
class Written:
    """What this device knows it wrote to the remote: its files up to `seq`, and the nonce of a push under way
    (a file past `seq` carrying it is this device's, from a push cut short; any other is a copy's)."""

    seq: int
    nonce: str | None


class Replica(Protocol):
    """This device's store as sync sees it."""

    device: str

    def applied(self) -> Mapping[str, int]:
        """The number of change files applied per remote device."""
        ...

    def apply(self, files: Sequence[ChangeFile]) -> Applied:
        """Applies remote change files (and snapshots) in one transaction, recording them as applied."""
        ...

    def pending(self) -> Pending:
        """The local changes since the last sync, stamped by this device's clock."""
        ...

    def written(self) -> Written | None:
        """What this device wrote to the remote (None: not known, as before its first push)."""
        ...

    def begin_push(self) -> str:
        """The nonce of the push about to be written, kept before the write (the same until a push is marked)."""
        ...

    def mark_pushed(self, pending: Pending, seq: int) -> None:
        """Records `pending` as on the remote, in this device's file `seq`."""
        ...

    def state(self) -> tuple[Change, ...]:
        """Every synced row as it is now, with its stamps (a snapshot's content)."""
        ...

    def blobs_of(self, changes: Sequence[Change]) -> tuple[str, ...]:
        """The blobs (attachments, archived tool outputs) the changes refer to."""
        ...

    def has_blob(self, sha256: str) -> bool: ...

    def read_blob(self, sha256: str) -> bytes: ...

    def write_blob(self, sha256: str, data: bytes) -> None: ...
