"""A real keyring backend that keeps passwords in process memory; tests select it via PYTHON_KEYRING_BACKEND."""

from __future__ import annotations

from typing import ClassVar

from keyring.backend import KeyringBackend


class MemoryKeyring(KeyringBackend):
    """Stores passwords in a dict shared by the process; never touches the user's keychain."""

    priority = 1
    _store: ClassVar[dict[tuple[str, str], str]] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self._store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        from keyring.errors import PasswordDeleteError

        if (service, username) not in self._store:
            raise PasswordDeleteError("no such password")
        del self._store[(service, username)]

    @classmethod
    def clear(cls) -> None:
        cls._store.clear()
