"""`palimpsest sync setup | now | status | off`."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, TextIO

from app.sync_service import SetupRequest, checked, needs_passphrase, set_up, status, sync_now, turn_off
from domain.errors import InvalidInput
from domain.sync.errors import SyncNotSetUp

if TYPE_CHECKING:
    from app.container import Container

PASSWORD_ENV, PASSPHRASE_ENV = "PALIMPSEST_SYNC_PASSWORD", "PALIMPSEST_SYNC_PASSPHRASE"
WAIT_SECONDS = 600.0  # for a sync of this device already running (the desktop app's), before giving up


def _waiting(err: TextIO) -> Callable[[], None]:
    def say() -> None:
        err.write("A sync of this device is already running (the desktop app's or another `palimpsest sync now`): "
                  "waiting for it to end...\n")
        err.flush()

    return say


async def run_sync(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Dispatches the sync action."""
    if args.action == "setup":
        return _setup(c, args, err)
    if args.action == "off":
        turn_off(c.storage, getattr(args, "new_device", False), WAIT_SECONDS, _waiting(err))
        err.write("Sync is off. The remote keeps its files; set sync up again to resume.\n")
        return 0
    if args.action == "status":
        return _status(c, args.json, out)
    report, took = sync_now(c.storage, WAIT_SECONDS, _waiting(err))
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


def _setup(c: Container, args: argparse.Namespace, err: TextIO) -> int:
    checked(SetupRequest(args.kind, args.target))  # a location of the wrong form: said before anything is asked
    password = access = secret = None
    if args.kind == "webdav" and args.user:
        password = _secret(PASSWORD_ENV, f"WebDAV password for {args.user}: ")
    if args.kind == "s3":
        access, secret = os.environ.get("AWS_ACCESS_KEY_ID"), os.environ.get("AWS_SECRET_ACCESS_KEY")
        if not access or not secret:
            raise InvalidInput("Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for the S3 remote (they are then "
                               "kept in the keychain).")
    request = SetupRequest(args.kind, args.target, args.user, password, args.endpoint, access, secret,
                           encrypt=args.encrypt)
    if needs_passphrase(request):
        prompt = "New sync passphrase: " if args.encrypt else "Sync passphrase: "
        request = replace(request, passphrase=_secret(PASSPHRASE_ENV, prompt))
    config = set_up(c.storage, request)
    what = "encrypted " if config.encrypted else ""
    err.write(f"Sync set up with the {what}{config.kind} remote {config.location}. "
              "Sync now with: palimpsest sync now\n")
    return 0


def _status(c: Container, as_json: bool, out: TextIO) -> int:
    body = status(c.storage)
    if body is None:
        raise SyncNotSetUp()
    if as_json:
        out.write(json.dumps(body, indent=2) + "\n")
        return 0
    last = body["last"]
    out.write(f"remote: {body['kind']} {body['location']}{' (encrypted)' if body['encrypted'] else ''}\n"
              f"this device: {body['device']}\n"
              f"last sync: {last['at'] if last else 'never'}\n"
              f"waiting to be sent: {body['waiting_changes']} change(s)\n")
    for device, seq in sorted(body["devices_applied"].items()):
        out.write(f"received from {device}: {seq} change file(s)\n")
    return 0
