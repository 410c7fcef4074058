"""KeyringApiKeyStorage: keychain first, then environment; no usable keychain is said plainly; keys never leak."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail
from keyring.errors import KeyringLocked

from data.keys import KeyringApiKeyStorage, keychain_problem
from data.storage import Storage
from domain.errors import InvalidInput, KeychainUnavailable
from tests.memory_keyring import MemoryKeyring

SECRET = "sk-test-7f3a9c1e5b2d4068a1b3c5d7e9f1a2b3"


@pytest.fixture
def backend_swap() -> Iterator[None]:
    """Lets a test select another backend; the configured one (MemoryKeyring) comes back afterwards."""
    previous = keyring.get_keyring()
    yield
    keyring.set_keyring(previous)


class LockedKeyring(KeyringBackend):
    """A keychain that is present but refuses every operation, like a locked Secret Service collection."""

    priority = 1

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringLocked("Failed to unlock the collection!")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringLocked(f"could not store {password}")

    def delete_password(self, service: str, username: str) -> None:
        raise KeyringLocked("locked")


class PlaintextLikeKeyring(MemoryKeyring):
    """Pretends to be keyrings.alt's plaintext backend."""


PlaintextLikeKeyring.__module__ = "keyrings.alt.file"


def test_the_configured_test_backend_is_the_in_memory_one() -> None:
    assert isinstance(keyring.get_keyring(), MemoryKeyring)


def test_a_key_set_in_the_keychain_is_read_back_under_the_palimpsest_service() -> None:
    keys = KeyringApiKeyStorage(env={})
    keys.set("anthropic", f"  {SECRET}\n")
    assert keys.get("anthropic") == SECRET
    assert keys.source("anthropic") == "keychain"
    assert keyring.get_password("palimpsest", "anthropic") == SECRET


def test_the_keychain_wins_over_the_environment() -> None:
    keys = KeyringApiKeyStorage(env={"OPENAI_API_KEY": "from-env"})
    assert (keys.get("openai"), keys.source("openai")) == ("from-env", "environment")
    keys.set("openai", SECRET)
    assert (keys.get("openai"), keys.source("openai")) == (SECRET, "keychain")


@pytest.mark.parametrize(("provider", "env", "expected"), [
    ("anthropic", {"ANTHROPIC_API_KEY": "a"}, "a"),
    ("openai", {"OPENAI_API_KEY": "o"}, "o"),
    ("gemini", {"GEMINI_API_KEY": "g"}, "g"),
    ("gemini", {"GOOGLE_API_KEY": "google"}, "google"),
    ("gemini", {"GEMINI_API_KEY": "g", "GOOGLE_API_KEY": "google"}, "g"),
    ("ollama", {"OPENAI_API_KEY": "o"}, None),
    ("anthropic", {"ANTHROPIC_API_KEY": "   "}, None),
])
def test_environment_variables_are_the_fallback_of_the_three_vendors_only(
    provider: str, env: dict[str, str], expected: str | None
) -> None:
    assert KeyringApiKeyStorage(env=env).get(provider) == expected


def test_the_environment_defaults_to_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "proc-env")
    assert KeyringApiKeyStorage().get("anthropic") == "proc-env"


def test_compatible_providers_use_the_keychain_only() -> None:
    keys = KeyringApiKeyStorage(env={})
    keys.set("lmstudio", SECRET)
    assert keys.get("lmstudio") == SECRET


def test_delete_removes_the_key_and_is_quiet_when_there_is_none() -> None:
    keys = KeyringApiKeyStorage(env={})
    keys.set("openai", SECRET)
    keys.delete("openai")
    keys.delete("openai")
    assert keys.get("openai") is None


@pytest.mark.parametrize("bad", ["", "   ", "sk-abc def", "sk-1\nsk-2"])
def test_an_empty_or_spaced_key_is_refused_without_echoing_it(bad: str) -> None:
    keys = KeyringApiKeyStorage(env={})
    with pytest.raises(InvalidInput) as caught:
        keys.set("openai", bad)
    assert bad.strip() == "" or bad not in str(caught.value)
    assert keys.get("openai") is None


def test_keyrings_fail_backend_is_reported_plainly_and_set_refuses(backend_swap: None) -> None:
    keyring.set_keyring(fail.Keyring())
    keys = KeyringApiKeyStorage(env={"OPENAI_API_KEY": "env-key"})
    problem = keys.keychain_problem()
    assert problem is not None and "environment variable" in problem
    with pytest.raises(KeychainUnavailable) as caught:
        keys.set("openai", SECRET)
    assert SECRET not in str(caught.value)
    assert str(caught.value) == problem  # said once, plainly, not wrapped in a second sentence
    assert keys.get("openai") == "env-key"  # the environment route still works
    assert keys.source("openai") == "environment"


def test_a_plaintext_backend_is_not_used_for_keys(backend_swap: None) -> None:
    keyring.set_keyring(PlaintextLikeKeyring())
    keys = KeyringApiKeyStorage(env={})
    assert "plain" in (keys.keychain_problem() or "")
    with pytest.raises(KeychainUnavailable):
        keys.set("openai", SECRET)
    assert PlaintextLikeKeyring._store == {}


def test_a_locked_keychain_neither_leaks_the_key_nor_crashes_reads(
    backend_swap: None, caplog: pytest.LogCaptureFixture
) -> None:
    keyring.set_keyring(LockedKeyring())
    keys = KeyringApiKeyStorage(env={"ANTHROPIC_API_KEY": "env"})
    assert keys.keychain_problem() is None
    with caplog.at_level(logging.DEBUG), pytest.raises(KeychainUnavailable) as caught:
        keys.set("anthropic", SECRET)
    assert SECRET not in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert keys.get("anthropic") == "env"
    assert SECRET not in caplog.text


def test_a_usable_backend_has_no_problem() -> None:
    assert keychain_problem(MemoryKeyring()) is None
    assert keychain_problem(fail.Keyring()) is not None


def test_a_stored_key_never_reaches_the_database_file(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path)
    keys = KeyringApiKeyStorage(env={})
    keys.set("openai", SECRET)
    storage.providers.update(storage.providers.get("openai"))  # type: ignore[arg-type]
    storage.close()
    for file in tmp_path.iterdir():
        assert SECRET.encode() not in file.read_bytes()
