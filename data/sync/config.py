"""This device's sync settings (in the database) and secrets (in the keychain), and the remote they describe."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from data.db.engine import Database
from data.sync.cipher import AeadCipher, PlainCipher, check_key, read_meta
from data.sync.replica import meta, set_meta
from domain.errors import KeychainUnavailable
from domain.sync.errors import RemoteError, WrongPassphrase
from domain.sync.ports import Cipher, Remote

CONFIG_KEY, LAST_KEY = "remote", "last"
SERVICE = "palimpsest-sync"
PASSWORD, ACCESS_KEY, SECRET_KEY, CIPHER_KEY = "webdav-password", "s3-access-key", "s3-secret-key", "key"
KINDS = ("folder", "webdav", "s3")


@dataclass(frozen=True)
class SyncConfig:
    """Where this device syncs: a folder path, a WebDAV URL or an s3://bucket/prefix; secrets are not here."""

    kind: str
    location: str
    user: str | None = None
    endpoint: str | None = None
    encrypted: bool = False


def load_config(db: Database) -> SyncConfig | None:
    with db.read() as s:
        value = meta(s.connection(), CONFIG_KEY)
    return SyncConfig(**value) if value else None


def save_config(db: Database, config: SyncConfig) -> None:
    with db.write() as s:
        set_meta(s.connection(), CONFIG_KEY, asdict(config))


def forget(db: Database, new_device: bool = False) -> None:
    """Turns sync off: the settings, what was synced and with whom (a later set-up starts afresh); the clock stays,
    and the device id unless `new_device` (a copied data folder takes a new one)."""
    keys = "'remote', 'last', 'written'" + (", 'device'" if new_device else "")
    with db.write() as s:
        conn = s.connection()
        for statement in (f"DELETE FROM sync_meta WHERE key IN ({keys})", "DELETE FROM sync_shadow",
                          "DELETE FROM sync_applied"):
            conn.exec_driver_sql(statement)


class SyncSecrets:
    """Passwords, access keys and the encryption key in the OS keychain (service "palimpsest-sync")."""

    def get(self, name: str) -> str | None:
        import keyring
        from keyring.errors import KeyringError

        try:
            return keyring.get_password(SERVICE, name)
        except KeyringError as exc:
            raise KeychainUnavailable(str(exc)) from exc

    def set(self, name: str, value: str) -> None:
        import keyring
        from keyring.errors import KeyringError

        try:
            keyring.set_password(SERVICE, name, value)
        except KeyringError as exc:
            raise KeychainUnavailable(str(exc)) from exc

    def delete(self, name: str) -> None:
        import keyring
        from keyring.errors import KeyringError

        try:
            keyring.delete_password(SERVICE, name)
        except KeyringError:
            pass  # not there: nothing to forget


def build_remote(config: SyncConfig, secrets: SyncSecrets) -> Remote:
    """The remote a configuration names (the HTTP clients are imported only for their kind)."""
    if config.kind == "folder":
        from data.sync.folder import FolderRemote

        return FolderRemote(Path(config.location).expanduser())
    if config.kind == "webdav":
        from data.sync.webdav import WebDavRemote

        return WebDavRemote(config.location, config.user, secrets.get(PASSWORD))
    if config.kind == "s3":
        from data.sync.s3 import S3Remote

        return S3Remote(config.location, config.endpoint, secrets.get(ACCESS_KEY), secrets.get(SECRET_KEY))
    raise RemoteError(f"Unknown sync remote kind {config.kind!r}: set sync up again.")


def build_cipher(remote: Remote, config: SyncConfig, secrets: SyncSecrets) -> Cipher:
    """The cipher of the remote, checked against its meta file; WrongPassphrase if the stored key does not open it."""
    found = read_meta(remote)
    if found is None:
        raise RemoteError("The sync remote is empty (its palimpsest-sync.json is gone): set sync up again.")
    if not found.encrypted:
        if config.encrypted:
            raise RemoteError("The sync remote is no longer encrypted: set sync up again.")
        return PlainCipher()
    stored = secrets.get(CIPHER_KEY)
    if stored is None:
        raise WrongPassphrase()
    key = bytes.fromhex(stored)
    check_key(found, key)
    return AeadCipher(key)
