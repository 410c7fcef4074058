"""`palimpsest sync setup | now | status | off`."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO

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
from domain.sync.errors import RemoteError, SyncNotSetUp
from domain.sync.sync_now import SyncNowUseCase

if TYPE_CHECKING:
    from app.container import Container

PASSWORD_ENV, PASSPHRASE_ENV = "PALIMPSEST_SYNC_PASSWORD", "PALIMPSEST_SYNC_PASSPHRASE"


async def run_sync(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Dispatches the sync action."""
    db, secrets = c.storage.unit_of_work, SyncSecrets()
    if args.action == "setup":
        return _setup(c, args, secrets, out, err)
    if args.action == "off":
        forget(db)
        for name in (PASSWORD, ACCESS_KEY, SECRET_KEY, CIPHER_KEY):
            secrets.delete(name)
        err.write("Sync is off. The remote keeps its files; set sync up again to resume.\n")
        return 0
    config = load_config(db)
    if config is None:
        raise SyncNotSetUp()
    replica = SqlReplica(db, c.storage.attachment_files)
    if args.action == "status":
        return _status(c, config, replica, args.json, out)
    remote = build_remote(config, secrets)
    use_case = SyncNowUseCase(remote, build_cipher(remote, config, secrets), replica)
    started = time.perf_counter()
    report = use_case()
    took = time.perf_counter() - started
    with db.write() as s:
        set_meta(s.connection(), "last", {"at": datetime.now(UTC).isoformat(), "received": report.received,
                                          "sent": report.sent, "bytes_sent": report.bytes_sent,
                                          "seconds": round(took, 3), "skipped": list(report.skipped)})
    for notice in report.notices:
        err.write(f"{notice}\n")
    for name in report.skipped:
        err.write(f"Skipped {name} on the remote (unreadable now: cut short, or another key); tried again next "
                  "time.\n")
    out.write(f"Received {report.received} change file(s); sent {report.sent} change(s), "
              f"{report.bytes_sent} bytes, in {took:.2f} s.\n")
    return 0


def _secret(env: str, prompt: str) -> str:
    value = os.environ.get(env)
    if value:
        return value
    if sys.stdin.isatty():
        return getpass.getpass(prompt)
    line = sys.stdin.readline().rstrip("\r\n")
    if not line:
        raise InvalidInput(f"Give it on standard input, or in {env}.")
    return line


def _setup(c: Container, args: argparse.Namespace, secrets: SyncSecrets, out: TextIO, err: TextIO) -> int:
    location = args.target
    if args.kind == "folder":
        location = os.path.abspath(os.path.expanduser(location))
    elif args.kind == "s3" and not location.startswith("s3://"):
        raise InvalidInput(f"An S3 remote is s3://BUCKET/PREFIX, not {location!r}.")
    elif args.kind == "webdav" and not location.startswith(("http://", "https://")):
        raise InvalidInput(f"A WebDAV remote is an http:// or https:// URL, not {location!r}.")
    config = SyncConfig(args.kind, location, args.user, args.endpoint, False)
    found: dict[str, str] = {}
    if args.kind == "webdav" and args.user:
        found[PASSWORD] = _secret(PASSWORD_ENV, f"WebDAV password for {args.user}: ")
    if args.kind == "s3":
        for name, env in ((ACCESS_KEY, "AWS_ACCESS_KEY_ID"), (SECRET_KEY, "AWS_SECRET_ACCESS_KEY")):
            value = os.environ.get(env) or secrets.get(name)
            if not value:
                raise InvalidInput(f"Set {env} for the S3 remote (it is then kept in the keychain).")
            found[name] = value
    probe = _GivenSecrets(found)
    remote = build_remote(config, probe)
    existing = read_meta(remote)
    if existing is None:
        passphrase = _secret(PASSPHRASE_ENV, "New sync passphrase: ") if args.encrypt else None
        existing, key = create_meta(remote, passphrase)
    elif existing.encrypted:
        key = unlock(existing, _secret(PASSPHRASE_ENV, "Sync passphrase: "))
    else:
        if args.encrypt:
            raise RemoteError("This remote already holds unencrypted sync files: choose an empty one to encrypt.")
        key = None
    for name, value in found.items():  # only once the remote answered and the passphrase opened it
        secrets.set(name, value)
    if key is not None:
        secrets.set(CIPHER_KEY, key.hex())
    save_config(c.storage.unit_of_work, SyncConfig(args.kind, location, args.user, args.endpoint,
                                                   existing.encrypted))
    what = "encrypted " if existing.encrypted else ""
    err.write(f"Sync set up with the {what}{args.kind} remote {location}. Sync now with: palimpsest sync now\n")
    return 0


class _GivenSecrets(SyncSecrets):
    """Secrets given now, before the keychain has them."""

    def __init__(self, given: dict[str, str]) -> None:
        self._given = given

    def get(self, name: str) -> str | None:
        return self._given.get(name)


def _status(c: Container, config: SyncConfig, replica: SqlReplica, as_json: bool, out: TextIO) -> int:
    with c.storage.unit_of_work.read() as s:
        last = meta(s.connection(), "last")
    waiting = len(replica.pending().changes)
    body = {"kind": config.kind, "location": config.location, "user": config.user, "endpoint": config.endpoint,
            "encrypted": config.encrypted, "device": replica.device, "devices_applied": dict(replica.applied()),
            "last": last, "waiting_changes": waiting}
    if as_json:
        out.write(json.dumps(body, indent=2) + "\n")
        return 0
    out.write(f"remote: {config.kind} {config.location}{' (encrypted)' if config.encrypted else ''}\n"
              f"this device: {replica.device}\n"
              f"last sync: {last['at'] if last else 'never'}\n"
              f"waiting to be sent: {waiting} change(s)\n")
    for device, seq in sorted(replica.applied().items()):
        out.write(f"received from {device}: {seq} change file(s)\n")
    return 0
