"""The arguments of `palimpsest sync ...` (argparse only)."""

from __future__ import annotations

import argparse
from typing import Any


def add_sync_parser(commands: argparse._SubParsersAction, group: Any) -> None:
    """The `sync` command group (called by the CLI parser)."""
    sync = group(commands, "sync", "sync conversations with your other devices through a folder, WebDAV or S3")
    setup = sync.add_parser("setup", help="sync through a folder PATH, a WebDAV URL or s3://BUCKET/PREFIX",
                            usage="palimpsest sync setup {folder PATH | webdav URL [--user U] | "
                            "s3 s3://BUCKET/PREFIX [--endpoint URL]} [--encrypt]")
    setup.add_argument("kind", choices=("folder", "webdav", "s3"), metavar="KIND", help="folder | webdav | s3")
    setup.add_argument("target", metavar="WHERE", help="the folder, the WebDAV URL or s3://BUCKET/PREFIX")
    setup.add_argument("--user", metavar="USER", help="the WebDAV user (the password is asked, or read from "
                       "PALIMPSEST_SYNC_PASSWORD, and kept in the keychain)")
    setup.add_argument("--endpoint", metavar="URL", help="an S3-compatible service's URL (MinIO, R2, Backblaze); "
                       "the keys come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY and go to the keychain")
    setup.add_argument("--encrypt", action="store_true",
                       help="encrypt everything written to a new remote with a passphrase (asked, or read from "
                       "PALIMPSEST_SYNC_PASSPHRASE); an encrypted remote always asks for it")
    sync.add_parser("now", help="send this device's changes and receive the others'")
    status = sync.add_parser("status", help="where this device syncs, when it last did, what waits to be sent")
    status.add_argument("--json", action="store_true", help="print JSON")
    off = sync.add_parser("off",
                          help="stop syncing (the remote and the conversations stay; secrets leave the keychain)")
    off.add_argument("--new-device", action="store_true",
                     help="also take a new device id (for a data folder copied from another device)")
