"""What the desktop app's Sync settings need from the backend: the status, set up, sync now, off."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class SyncInfo:
    """Where this device syncs and how it went last time."""

    kind: str
    location: str
    encrypted: bool
    last_at: str | None  # ISO time of the last sync, None: never
    last_summary: str | None  # what the last sync did, in words
    waiting: int  # local changes not yet sent


@dataclass(frozen=True)
class SyncSetup:
    """What the person typed in the set-up form (secrets go to the keychain only)."""

    kind: str  # folder | webdav | s3
    location: str
    user: str | None = None
    password: str | None = None
    endpoint: str | None = None
    access_key: str | None = None
    secret_key: str | None = None
    passphrase: str | None = None
    encrypt: bool = False


@dataclass(frozen=True)
class SyncOutcome:
    """What one sync did: in words (notices included), and how many change files it received."""

    summary: str
    received: int


class SyncBackend(Protocol):
    """Sync verbs (each blocking call runs off the event loop in the implementation)."""

    async def sync_info(self) -> SyncInfo | None:
        """The status, or None when sync is not set up."""
        ...

    async def sync_setup(self, setup: SyncSetup) -> SyncInfo: ...

    async def sync_now(self) -> SyncOutcome:
        """Syncs once."""
        ...

    async def sync_off(self) -> None: ...
