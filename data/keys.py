"""API keys in the OS keychain (via keyring), with the conventional environment variables as a fallback."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from data.redaction import register_secret
from domain.errors import InvalidInput, KeychainUnavailable
from domain.models import ProviderId
from domain.ports import KeySource

if TYPE_CHECKING:  # keyring itself is imported on first use: commands that never read a key start without it
    from keyring.backend import KeyringBackend

SERVICE = "palimpsest"
ENV_VARS: Mapping[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY",),
    "openai": ("OPENAI_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
}
_log = logging.getLogger(__name__)


class KeyringApiKeyStorage:
    """Keys live in the keychain (service "palimpsest", user = provider id); never in a file, the DB or a log."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env if env is not None else os.environ

    def get(self, provider_id: ProviderId) -> str | None:
        key = self._from_keychain(provider_id)
        return key if key is not None else self._from_env(provider_id)

    def source(self, provider_id: ProviderId) -> KeySource | None:
        if self._from_keychain(provider_id) is not None:
            return "keychain"
        if self._from_env(provider_id) is not None:
            return "environment"
        return None

    def set(self, provider_id: ProviderId, key: str) -> None:
        clean = key.strip()
        if not clean:
            raise InvalidInput("The API key is empty.")
        if any(ch.isspace() for ch in clean):
            raise InvalidInput("The API key contains spaces or line breaks; paste the key alone.")
        register_secret(clean)
        backend = self._usable_backend()
        from keyring.errors import KeyringError

        try:
            backend.set_password(SERVICE, provider_id, clean)
        except KeyringError as exc:
            raise KeychainUnavailable(f"the keychain refused to store it: {type(exc).__name__}") from None

    def delete(self, provider_id: ProviderId) -> None:
        backend = self._usable_backend()
        from keyring.errors import KeyringError, PasswordDeleteError

        try:
            backend.delete_password(SERVICE, provider_id)
        except PasswordDeleteError:
            return
        except KeyringError as exc:
            raise KeychainUnavailable(f"the keychain refused to delete it: {type(exc).__name__}") from None

    def keychain_problem(self) -> str | None:
        import keyring

        return keychain_problem(keyring.get_keyring())

    def env_var_names(self, provider_id: ProviderId) -> tuple[str, ...]:
        """The environment variables consulted for a provider (none for OpenAI-compatible ones)."""
        return ENV_VARS.get(provider_id, ())

    def _usable_backend(self) -> KeyringBackend:
        import keyring

        backend = keyring.get_keyring()
        problem = keychain_problem(backend)
        if problem is not None:
            raise KeychainUnavailable(message=problem)
        return backend

    def _from_keychain(self, provider_id: ProviderId) -> str | None:
        import keyring
        from keyring.errors import KeyringError

        backend = keyring.get_keyring()
        if keychain_problem(backend) is not None:
            return None
        try:
            value = backend.get_password(SERVICE, provider_id)
        except KeyringError as exc:
            _log.warning("Could not read the key of %s from the keychain (%s).", provider_id, type(exc).__name__)
            return None
        clean = value.strip() if value else ""
        register_secret(clean)  # from now on redacted from every message, traceback and log record
        return clean or None

    def _from_env(self, provider_id: ProviderId) -> str | None:
        for name in ENV_VARS.get(provider_id, ()):
            value = self._env.get(name, "").strip()
            if value:
                register_secret(value)
                return value
        return None


def keychain_problem(backend: KeyringBackend) -> str | None:
    """None for a usable keychain, else a plain sentence saying why it cannot be used (naming the backend)."""
    from keyring.backends import chainer, fail

    backends = list(backend.backends) if isinstance(backend, chainer.ChainerBackend) else [backend]
    usable = [b for b in backends if not isinstance(b, fail.Keyring) and not _is_null(b) and not _is_plaintext(b)]
    if usable:
        return None
    instead = "Use the provider's environment variable (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY) instead."
    plaintext = [b for b in backends if _is_plaintext(b)]
    if plaintext:
        return (f"Only a plain-text keyring backend is installed ({_backend_name(plaintext[0])}); Palimpsest will "
                f"not keep keys in a plain file. {instead}")
    nulls = [b for b in backends if _is_null(b)]
    if nulls:
        return (f"The keyring is switched off: its null backend ({_backend_name(nulls[0])}) is selected, by "
                f"PYTHON_KEYRING_BACKEND or keyring's configuration file, and stores nothing. {instead}")
    return f"No system keychain was found (no Secret Service, macOS Keychain or Windows Credential Locker). {instead}"


def _backend_name(backend: KeyringBackend) -> str:
    kind = type(backend)
    return f"{kind.__module__}.{kind.__qualname__}"


def _is_null(backend: KeyringBackend) -> bool:
    return type(backend).__module__.startswith("keyring.backends.null")


def _is_plaintext(backend: KeyringBackend) -> bool:
    return type(backend).__module__.startswith("keyrings.alt")
