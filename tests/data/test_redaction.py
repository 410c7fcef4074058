"""The secret registry: keys read from the keychain or environment are redacted from logs, tracebacks and errors."""

from __future__ import annotations

import gc
import io
import logging
import sys
import threading
from collections.abc import Iterator

import keyring
import pytest

from data.keys import KeyringApiKeyStorage
from data.providers.errors import scrub, status_error
from data.redaction import (
    REDACTED,
    RedactingFilter,
    forget_secrets,
    format_exception,
    redact,
    redacted_output,
    register_secret,
)
from domain.errors import AuthenticationFailed, InvalidResponse

KEY = "sk-live-REDACT-ME-4242"


@pytest.fixture(autouse=True)
def _empty_registry() -> Iterator[None]:
    forget_secrets()
    yield
    forget_secrets()


class SdkError(Exception):
    """Stands for an SDK exception whose text carries the server's 401 body."""


def _chained() -> AuthenticationFailed:
    try:
        try:
            raise SdkError(f"Error code: 401 - {{'message': 'Incorrect API key provided: {KEY}'}}")
        except SdkError as inner:
            raise AuthenticationFailed("OpenAI") from inner
    except AuthenticationFailed as outer:
        return outer


def test_a_key_read_from_the_environment_or_the_keychain_is_registered():
    KeyringApiKeyStorage(env={"OPENAI_API_KEY": f"  {KEY}  "}).get("openai")
    keyring.get_keyring().set_password("palimpsest", "anthropic", "sk-ant-from-keychain-1")
    KeyringApiKeyStorage(env={}).get("anthropic")
    assert redact(f"a {KEY} b sk-ant-from-keychain-1") == f"a {REDACTED} b {REDACTED}"


def test_short_values_are_never_registered_so_ordinary_words_survive():
    register_secret("abc")
    register_secret("")
    register_secret(None)
    assert redact("abc and more") == "abc and more"


def test_a_key_containing_another_is_replaced_whole():
    register_secret("sk-short-1234")
    register_secret("sk-short-1234-and-longer")
    assert redact("x sk-short-1234-and-longer y") == f"x {REDACTED} y"


def test_a_traceback_of_the_whole_chain_carries_no_key():
    register_secret(KEY)
    text = format_exception(_chained())
    assert "SdkError" in text and "AuthenticationFailed" in text and REDACTED in text
    assert KEY not in text


def test_a_log_record_with_the_key_in_its_arguments_and_its_exception_is_redacted():
    register_secret(KEY)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter())
    log = logging.getLogger("tests.redaction")
    log.addHandler(handler)
    try:
        error = _chained()
        log.error("request failed with %s", KEY, exc_info=(type(error), error, error.__traceback__))
        log.warning("stack", stack_info=True, extra={"k": KEY})
    finally:
        log.removeHandler(handler)
    text = stream.getvalue()
    assert "request failed with [redacted]" in text and "SdkError" in text
    assert KEY not in text


def test_the_cli_output_block_redacts_log_records_and_unraisable_exceptions(capsys: pytest.CaptureFixture[str]) -> None:
    register_secret(KEY)

    class Leaky:
        def __del__(self) -> None:
            raise RuntimeError(f"closing failed for key {KEY}")

    before = sys.unraisablehook
    with redacted_output(debug=True):
        logging.getLogger("data.providers").debug("using key %s", KEY)
        logging.getLogger("somewhere.else").warning("saw %s", KEY)
        Leaky()
        gc.collect()
        thread = threading.Thread(target=lambda: (_ for _ in ()).throw(ValueError(KEY)))
        thread.start()
        thread.join()
    assert sys.unraisablehook is before  # restored after the block
    err = capsys.readouterr().err
    assert "using key [redacted]" in err and "saw [redacted]" in err
    assert "closing failed for key [redacted]" in err and "ValueError: [redacted]" in err
    assert KEY not in err


def test_a_provider_message_is_scrubbed_of_registered_keys_even_when_cut_short():
    register_secret(KEY)
    long_message = "x" * 290 + f" {KEY} trailing text"
    error = status_error("OpenAI", 400, long_message)
    assert isinstance(error, InvalidResponse)
    assert "sk-live" not in error.message and "REDACT" not in error.message
    other = scrub(InvalidResponse(f"echo {KEY} and sk-adapter-own-9"), "sk-adapter-own-9")
    assert other.message == f"echo {REDACTED} and {REDACTED}" and other.args == (other.message,)
