"""A real keyring backend keeping passwords in a JSON file named by $PALIMPSEST_TEST_KEYRING_FILE.

Subprocess CLI tests select it with PYTHON_KEYRING_BACKEND=tests.file_keyring.FileKeyring so that a key stored by
one `palimpsest keys set` is seen by the next command. The file must live outside PALIMPSEST_HOME: it stands for
the OS keychain, which is never part of Palimpsest's data folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

ENV_VAR = "PALIMPSEST_TEST_KEYRING_FILE"


class FileKeyring(KeyringBackend):
    """Stores {service: {username: password}} in the JSON file named by PALIMPSEST_TEST_KEYRING_FILE."""

    priority = 1  # type: ignore[assignment]

    @staticmethod
    def _path() -> Path:
        value = os.environ.get(ENV_VAR, "").strip()
        if not value:
            raise RuntimeError(f"{ENV_VAR} must name the file FileKeyring keeps its passwords in")
        return Path(value)

    def _load(self) -> dict[str, dict[str, str]]:
        path = self._path()
        if not path.exists():
            return {}
        data: dict[str, dict[str, str]] = json.loads(path.read_text(encoding="utf-8") or "{}")
        return data

    def _save(self, data: dict[str, dict[str, str]]) -> None:
        path = self._path()
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(path)

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(service, {}).get(username)

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data.setdefault(service, {})[username] = password
        self._save(data)

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if username not in data.get(service, {}):
            raise PasswordDeleteError("no such password")
        del data[service][username]
        self._save(data)
