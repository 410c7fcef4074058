"""End-to-end encryption of a remote: a key derived from a passphrase (scrypt), every file sealed with AES-256-GCM
(its name bound in as associated data), attachments stored under a keyed hash of their digest."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from domain.sync.errors import RemoteError, RemoteMissing, WrongPassphrase
from domain.sync.ports import Remote
from domain.sync.records import CorruptFile

META = "palimpsest-sync.json"  # written once, by the first device, never changed
MAGIC = b"PSE1"
NONCE = 12
CHECK_NAME, CHECK_TEXT = "check", b"palimpsest sync key check"
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**15, 8, 1


class PlainCipher:
    """No encryption: files go as they are."""

    encrypted = False

    def seal(self, name: str, data: bytes) -> bytes:
        return data

    def open(self, name: str, data: bytes) -> bytes:
        return data

    def blob_name(self, sha256: str) -> str:
        return sha256


class AeadCipher:
    """AES-256-GCM with a random nonce per file; the file's remote name is authenticated with it."""

    encrypted = True

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._aead = AESGCM(key)

    def seal(self, name: str, data: bytes) -> bytes:
        nonce = os.urandom(NONCE)
        return MAGIC + nonce + self._aead.encrypt(nonce, data, name.encode("utf-8"))

    def open(self, name: str, data: bytes) -> bytes:
        if not data.startswith(MAGIC) or len(data) < len(MAGIC) + NONCE + 16:
            raise CorruptFile(f"{name} is not an encrypted sync file")
        nonce = data[len(MAGIC):len(MAGIC) + NONCE]
        try:
            return self._aead.decrypt(nonce, data[len(MAGIC) + NONCE:], name.encode("utf-8"))
        except InvalidTag:
            raise CorruptFile(f"{name} was changed, cut short, or sealed with another key") from None

    def blob_name(self, sha256: str) -> str:
        return hmac.new(self._key, sha256.encode("ascii"), hashlib.sha256).hexdigest()


def derive_key(passphrase: str, salt: bytes, n: int = SCRYPT_N, r: int = SCRYPT_R, p: int = SCRYPT_P) -> bytes:
    """A 256-bit key from a passphrase (scrypt)."""
    return Scrypt(salt=salt, length=32, n=n, r=r, p=p).derive(passphrase.encode("utf-8"))


@dataclass(frozen=True)
class RemoteMeta:
    """What a remote says about itself: its format and, when encrypted, how its key is derived and checked."""

    encrypted: bool
    salt: bytes = b""
    n: int = SCRYPT_N
    r: int = SCRYPT_R
    p: int = SCRYPT_P
    check: bytes = b""

    def to_bytes(self) -> bytes:
        body: dict[str, object] = {"format": 1, "encrypted": self.encrypted}
        if self.encrypted:
            body["kdf"] = {"name": "scrypt", "salt": _b64(self.salt), "n": self.n, "r": self.r, "p": self.p}
            body["check"] = _b64(self.check)
        return json.dumps(body, indent=1).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes) -> RemoteMeta:
        try:
            body = json.loads(data)
            if body["format"] != 1:
                raise RemoteError("This sync remote was written by a newer Palimpsest: update this one first.")
            if not body["encrypted"]:
                return cls(False)
            kdf = body["kdf"]
            return cls(True, base64.b64decode(kdf["salt"]), int(kdf["n"]), int(kdf["r"]), int(kdf["p"]),
                       base64.b64decode(body["check"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise RemoteError(f"The sync remote's {META} is not readable ({exc}).") from exc


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def read_meta(remote: Remote) -> RemoteMeta | None:
    """The remote's meta file, or None for a remote nothing was written to yet."""
    try:
        return RemoteMeta.from_bytes(remote.get(META))
    except RemoteMissing:
        return None


def create_meta(remote: Remote, passphrase: str | None) -> tuple[RemoteMeta, bytes | None]:
    """Writes the meta file of a new remote (or reads the one another device wrote first); returns it and the key."""
    if passphrase is None:
        meta, key = RemoteMeta(False), None
    else:
        salt = os.urandom(16)
        key = derive_key(passphrase, salt)
        meta = RemoteMeta(True, salt, check=AeadCipher(key).seal(CHECK_NAME, CHECK_TEXT))
    if remote.put(META, meta.to_bytes()):
        return meta, key
    found = read_meta(remote)
    if found is None:
        raise RemoteError(f"The sync remote refused {META} but does not have one.")
    return found, unlock(found, passphrase) if found.encrypted else None


def unlock(meta: RemoteMeta, passphrase: str | None) -> bytes:
    """The key of an encrypted remote from its passphrase; WrongPassphrase if it is not the one."""
    if passphrase is None:
        raise WrongPassphrase()
    key = derive_key(passphrase, meta.salt, meta.n, meta.r, meta.p)
    check_key(meta, key)
    return key


def check_key(meta: RemoteMeta, key: bytes) -> None:
    try:
        if AeadCipher(key).open(CHECK_NAME, meta.check) != CHECK_TEXT:
            raise WrongPassphrase()
    except CorruptFile:
        raise WrongPassphrase() from None
