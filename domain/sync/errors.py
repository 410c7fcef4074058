"""Errors of sync a person can act on."""

from __future__ import annotations

from domain.errors import PalimpsestError


class RemoteError(PalimpsestError):
    """The remote could not be reached, read or written (nothing local changed)."""


class RemoteMissing(RemoteError):
    """The remote has no file of that name."""


class WrongPassphrase(PalimpsestError):
    """The passphrase does not open this remote's files."""

    def __init__(self) -> None:
        super().__init__("The passphrase does not match this sync remote's (nothing was changed). Give the passphrase "
                         "used on the first device.")


class DeviceCopied(PalimpsestError):
    """Another installation writes under this device's sync id: the data folder was copied."""

    def __init__(self, device: str) -> None:
        super().__init__(f"Another machine syncs under this device's id {device}: its data folder was copied from "
                         "this one (or this one from it). Nothing was changed. On the copy, run: palimpsest sync off "
                         "--new-device, then set sync up again (its conversations are kept and merged).")
        self.device = device


class SyncNotSetUp(PalimpsestError):
    """Sync was asked for before a remote was set up."""

    def __init__(self) -> None:
        super().__init__("Sync is not set up. Set it up with: palimpsest sync setup folder PATH "
                         "(or webdav URL, or s3 s3://BUCKET/PREFIX)")


class SyncRunning(PalimpsestError):
    """Another sync of this device (the desktop app's, or another `palimpsest sync now`) holds the sync lock."""

    def __init__(self) -> None:
        super().__init__("A sync of this device is already running (the desktop app's or another `palimpsest sync "
                         "now`): this one did not start. Try again when it has ended.")
