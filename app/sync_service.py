"""Sync's verbs over the opened store, shared by the CLI and the desktop app: set up, sync now, status, off."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from app.sync_faults import with_fault
from data.db.file_lock import LockTimeout, exclusive_lock
from data.storage import Storage
from data.sync.cipher import create_meta, read_meta, unlock
from data.sync.config import (
    ACCESS_KEY,
    CIPHER_KEY,
    PASSWORD,
    SECRET_KEY,
    SyncConfig,
    SyncSecrets,
    build_cipher,
    build_remote,
    forget,
    load_config,
    save_config,
)
from data.sync.replica import SqlReplica, meta, set_meta
from domain.errors import InvalidInput
from domain.sync.errors import RemoteError, SyncNotSetUp, SyncRunning
from domain.sync.sync_now import SyncNowUseCase, SyncReport

SYNC_LOCK = "sync.lock"  # beside the database: one sync of a data folder at a time, across processes


@contextmanager
def one_sync(storage: Storage, wait: float = 0.0, waiting: Callable[[], None] | None = None) -> Iterator[None]:
    """Holds this data folder's sync lock for the block (released when the process ends, even killed); waits up to
    `wait` seconds for a sync already running (`waiting` is called once first), then SyncRunning."""
    try:
        with exclusive_lock(storage.path.parent / SYNC_LOCK, wait, waiting):
            yield
    except LockTimeout:
        raise SyncRunning() from None


@dataclass(frozen=True)
class SetupRequest:
    """What a person gave to set sync up (secrets included; they go to the keychain only)."""

    kind: str
    location: str
    user: str | None = None
    password: str | None = None  # WebDAV
    endpoint: str | None = None  # S3-compatible
    access_key: str | None = None
    secret_key: str | None = None
    passphrase: str | None = None  # asked for an encrypted remote, or to encrypt a new one
    encrypt: bool = False


class _GivenSecrets(SyncSecrets):
    """Secrets given now, before the keychain has them."""

    def __init__(self, given: dict[str, str]) -> None:
        self._given = given

    def get(self, name: str) -> str | None:
        return self._given.get(name)


def needs_passphrase(request: SetupRequest) -> bool:
    """Whether the remote asks for a passphrase (it is encrypted, or will be)."""
    if request.encrypt:
        return True
    found = read_meta(build_remote(_config(checked(request)), _GivenSecrets(_secrets(request))))
    return found is not None and found.encrypted


def _config(request: SetupRequest, encrypted: bool = False) -> SyncConfig:
    return SyncConfig(request.kind, request.location, request.user, request.endpoint, encrypted)


def _secrets(request: SetupRequest) -> dict[str, str]:
    given = {PASSWORD: request.password, ACCESS_KEY: request.access_key, SECRET_KEY: request.secret_key}
    return {k: v for k, v in given.items() if v}


def checked(request: SetupRequest) -> SetupRequest:
    """The request with its location made absolute (a folder); InvalidInput for a location of the wrong form."""
    location = request.location.strip()
    if request.kind == "folder":
        location = os.path.abspath(os.path.expanduser(location))
    elif request.kind == "s3" and not location.startswith("s3://"):
        raise InvalidInput(f"An S3 remote is s3://BUCKET/PREFIX, not {location!r}.")
    elif request.kind == "webdav" and not location.startswith(("http://", "https://")):
        raise InvalidInput(f"A WebDAV remote is an http:// or https:// URL, not {location!r}.")
    elif request.kind not in ("folder", "s3", "webdav"):
        raise InvalidInput(f"Sync through a folder, webdav or s3, not {request.kind!r}.")
    return replace(request, location=location)


def set_up(storage: Storage, request: SetupRequest) -> SyncConfig:
    """Checks the remote (and the passphrase of an encrypted one) before anything is kept; then keeps the settings
    in the database and the secrets in the keychain. WrongPassphrase / RemoteError change nothing."""
    request = checked(request)
    given = _secrets(request)
    remote = build_remote(_config(request), _GivenSecrets(given))
    existing = read_meta(remote)
    if existing is None:
        existing, key = create_meta(remote, request.passphrase if request.encrypt else None)
    elif existing.encrypted:
        key = unlock(existing, request.passphrase)
    else:
        if request.encrypt:
            raise RemoteError("This remote already holds unencrypted sync files: choose an empty one to encrypt.")
        key = None
    secrets = SyncSecrets()
    for name, value in given.items():  # only once the remote answered and the passphrase opened it
        secrets.set(name, value)
    if key is not None:
        secrets.set(CIPHER_KEY, key.hex())
    config = _config(request, existing.encrypted)
    save_config(storage.unit_of_work, config)
    return config


def sync_now(storage: Storage, wait: float = 0.0,
             waiting: Callable[[], None] | None = None) -> tuple[SyncReport, float]:
    """One sync with the configured remote, under the sync lock (see one_sync); records when and what it did.
    SyncNotSetUp without a remote."""
    with one_sync(storage, wait, waiting):
        config = load_config(storage.unit_of_work)
        if config is None:
            raise SyncNotSetUp()
        secrets = SyncSecrets()
        remote = build_remote(config, secrets)
        replica = SqlReplica(storage.unit_of_work, storage.attachment_files)
        remote, replica = with_fault(storage.unit_of_work, remote, replica)
        started = time.perf_counter()
        report = SyncNowUseCase(remote, build_cipher(remote, config, secrets), replica)()
        took = time.perf_counter() - started
        with storage.unit_of_work.write() as s:
            set_meta(s.connection(), "last", {"at": datetime.now(UTC).isoformat(), "received": report.received,
                                              "sent": report.sent, "bytes_sent": report.bytes_sent,
                                              "seconds": round(took, 3), "skipped": list(report.skipped),
                                              "notices": list(report.notices)})
    return report, took


def status(storage: Storage) -> dict[str, Any] | None:
    """Where this device syncs, when it last did and what waits to be sent; None when sync is not set up."""
    config = load_config(storage.unit_of_work)
    if config is None:
        return None
    replica = SqlReplica(storage.unit_of_work, storage.attachment_files)
    with storage.unit_of_work.read() as s:
        last = meta(s.connection(), "last")
    return {"kind": config.kind, "location": config.location, "user": config.user, "endpoint": config.endpoint,
            "encrypted": config.encrypted, "device": replica.device, "devices_applied": dict(replica.applied()),
            "last": last, "waiting_changes": len(replica.pending().changes)}


def turn_off(storage: Storage, new_device: bool = False, wait: float = 0.0,
             waiting: Callable[[], None] | None = None) -> None:
    """Forgets the remote, what was synced with it, and its secrets (the remote's files stay); `new_device`: this
    data folder takes a new device id (it was copied from another device's). Not while a sync runs (one_sync)."""
    with one_sync(storage, wait, waiting):
        forget(storage.unit_of_work, new_device)
    secrets = SyncSecrets()
    for name in (PASSWORD, ACCESS_KEY, SECRET_KEY, CIPHER_KEY):
        secrets.delete(name)
