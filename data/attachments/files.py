"""Attachment files stored once by the sha256 of their bytes, under the data folder's attachments/ directory."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from domain.errors import StorageError

log = logging.getLogger(__name__)
TEXT_SUFFIX = ".txt"  # beside a PDF: the text extracted from it


class AttachmentFiles:
    """Write-once files named by their sha256 (attachments/ab/abcdef...); a file is never changed, so writing the
    same bytes twice is free and a half-written file is never visible (written aside, then renamed into place)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, sha256: str) -> Path:
        """Where the file with this digest lives (it may not exist)."""
        if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
            raise ValueError(f"not a sha256 digest: {sha256!r}")
        return self.folder / sha256[:2] / sha256

    def put(self, data: bytes) -> str:
        """Stores the bytes (unless already stored) and returns their sha256."""
        digest = hashlib.sha256(data).hexdigest()
        target = self.path(digest)
        if not target.exists():
            self._write(target, data)
        return digest

    def put_text(self, sha256: str, text: str) -> None:
        """Stores the text extracted from the file `sha256` beside it."""
        target = self.path(sha256).with_suffix(TEXT_SUFFIX)
        if not target.exists():
            self._write(target, text.encode("utf-8"))

    def read(self, sha256: str) -> bytes:
        """The stored bytes; StorageError when the file is gone."""
        try:
            return self.path(sha256).read_bytes()
        except FileNotFoundError:
            raise StorageError(f"The attachment file {self.path(sha256)} is missing from the data folder.") from None

    def text(self, sha256: str) -> str | None:
        """The text extracted from a stored PDF, or None when there is none."""
        try:
            return self.path(sha256).with_suffix(TEXT_SUFFIX).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def exists(self, sha256: str) -> bool:
        """Whether the file is stored."""
        return self.path(sha256).exists()

    def delete(self, digests: Iterable[str]) -> None:
        """Removes the files (and extracted text) no message refers to any more; a file already gone is fine."""
        for digest in digests:
            for target in (self.path(digest), self.path(digest).with_suffix(TEXT_SUFFIX)):
                try:
                    target.unlink()
                except FileNotFoundError:
                    pass
                except OSError as exc:  # left behind: it takes room but nothing refers to it
                    log.warning("could not delete the attachment file %s: %s", target, exc)

    def stored_before(self, cutoff: float) -> list[str]:
        """Digests of the stored files last written before `cutoff` (a time.time() value)."""
        found = []
        for shard in self.folder.glob("??"):
            for path in shard.iterdir() if shard.is_dir() else ():
                name = path.name
                if len(name) == 64 and name[:2] == shard.name and not path.suffix:
                    try:
                        if path.stat().st_mtime < cutoff:
                            found.append(name)
                    except OSError:  # removed meanwhile
                        continue
        return found

    def write_meta(self, name: str, data: bytes) -> None:
        """Writes (or replaces whole) a small bookkeeping file of the store, e.g. the Gemini uploads."""
        self._write(self.folder / name, data)

    def _write(self, target: Path, data: bytes) -> None:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".incoming-")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(tmp, target)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise StorageError(f"Palimpsest cannot store an attachment in {self.folder} ({exc.strerror or exc}). "
                               "Free some disk space or make the folder writable.") from exc
