"""A key round-trips through a real Secret Service (gnome-keyring); CI runs this under dbus-run-session."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import keyring
import pytest

from data.keys import KeyringApiKeyStorage

pytestmark = [
    pytest.mark.secret_service,
    pytest.mark.skipif(
        os.environ.get("PALIMPSEST_TEST_SECRET_SERVICE") != "1",
        reason="needs a real Secret Service: set PALIMPSEST_TEST_SECRET_SERVICE=1 inside dbus-run-session "
        "with gnome-keyring unlocked (as .ci/run does)",
    ),
]


@pytest.fixture
def secret_service() -> Iterator[None]:
    """Selects the Secret Service backend explicitly, restoring the configured one afterwards."""
    from keyring.backends import SecretService

    previous = keyring.get_keyring()
    keyring.set_keyring(SecretService.Keyring())
    yield
    keyring.set_keyring(previous)


def test_a_key_round_trips_through_the_secret_service_and_is_deleted(secret_service: None) -> None:
    provider = f"palimpsest-test-{uuid.uuid4().hex[:8]}"
    secret = f"sk-ss-{uuid.uuid4().hex}"
    keys = KeyringApiKeyStorage(env={})
    assert keys.keychain_problem() is None
    keys.set(provider, secret)
    try:
        assert keys.get(provider) == secret
        assert keys.source(provider) == "keychain"
        assert keyring.get_password("palimpsest", provider) == secret
    finally:
        keys.delete(provider)
    assert keys.get(provider) is None
