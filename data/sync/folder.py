"""A remote that is a folder (kept in step by Syncthing, Dropbox, iCloud Drive, OneDrive or a network share)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from pathlib import Path

from domain.sync.errors import RemoteError, RemoteMissing

TMP_SUFFIX = ".part"


class FolderRemote:
    """Files under a folder; each written aside, flushed, then linked into place (never over an existing one)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def describe(self) -> str:
        return f"folder {self.root}"

    def check(self) -> None:
        """RemoteError unless the folder exists (or can be made) and takes files."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            probe = self.root / f".probe-{uuid.uuid4().hex}{TMP_SUFFIX}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise RemoteError(f"The sync folder {self.root} cannot be written ({exc.strerror}).") from exc

    def list(self, prefix: str) -> Sequence[str]:
        base = self.root / prefix
        if not base.is_dir():
            return []
        names = []
        for path in base.rglob("*"):
            if path.is_file() and not path.name.endswith(TMP_SUFFIX) and not path.name.startswith("."):
                names.append(path.relative_to(self.root).as_posix())
        return sorted(names)

    def get(self, name: str) -> bytes:
        try:
            return (self.root / name).read_bytes()
        except FileNotFoundError as exc:
            raise RemoteMissing(f"The sync folder {self.root} has no {name}.") from exc
        except OSError as exc:
            raise RemoteError(f"Cannot read {name} in the sync folder {self.root} ({exc.strerror}).") from exc

    def delete(self, name: str) -> None:
        try:
            (self.root / name).unlink(missing_ok=True)
        except OSError as exc:
            raise RemoteError(f"Cannot delete {name} in the sync folder {self.root} ({exc.strerror}).") from exc

    def sweep(self, folder: str) -> int:
        base = self.root / folder
        gone = 0
        try:
            for path in base.glob(f".*{TMP_SUFFIX}") if base.is_dir() else ():
                path.unlink(missing_ok=True)
                gone += 1
        except OSError as exc:
            raise RemoteError(f"Cannot clean {folder} in the sync folder {self.root} ({exc.strerror}).") from exc
        return gone

    def put(self, name: str, data: bytes, scratch: str | None = None) -> bool:
        target = self.root / name
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.exists():
                return False
            aside = target.parent if scratch is None else self.root / scratch
            aside.mkdir(parents=True, exist_ok=True)
            tmp = aside / f".{target.name}.{uuid.uuid4().hex}{TMP_SUFFIX}"
            with open(tmp, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            try:
                os.link(tmp, target)  # fails if the name is taken: never replaces a file
            except FileExistsError:
                return False
            except OSError:  # a file system without hard links
                if target.exists():
                    return False
                os.replace(tmp, target)
                return True
            finally:
                tmp.unlink(missing_ok=True)
            return True
        except OSError as exc:
            raise RemoteError(f"Cannot write {name} in the sync folder {self.root} ({exc.strerror}).") from exc
