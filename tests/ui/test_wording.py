"""The app words errors from their fields: the place in Settings that fixes them (never a CLI command), a network
failure's cause and URL, a reply cut off named as cut off (not as stopped, not as never reached)."""

from __future__ import annotations

import pytest

from domain.errors import (
    AuthenticationFailed,
    InvalidInput,
    NetworkError,
    NoProviderConfigured,
    ProviderTimeout,
    ProviderUnavailable,
)
from domain.events import ChatError, Notice
from ui.error_text import describe, notice_text, settings_page, too_long_text, turn_error_text

URL = "http://127.0.0.1:9/v1"


def event(error: NetworkError | ProviderUnavailable) -> ChatError:
    return ChatError(error.kind, error.message, retryable=error.transient, error=error)


@pytest.mark.parametrize("error", [AuthenticationFailed("Anthropic", missing=True), AuthenticationFailed("OpenAI"),
                                   NoProviderConfigured()], ids=["missing", "rejected", "no-provider"])
def test_a_key_or_provider_error_names_the_settings_page_that_fixes_it_and_no_command(error) -> None:
    text = describe(error)
    assert "palimpsest" not in text and "`" not in text and "Settings › Providers" in text
    assert settings_page(error) == "Providers"


def test_a_missing_key_tells_the_user_to_add_one_in_settings_providers() -> None:
    assert describe(AuthenticationFailed("Anthropic", missing=True)) == (
        "No API key is set for Anthropic. Add a key in Settings › Providers, or set the provider's environment "
        "variable.")


def test_other_errors_are_said_as_the_domain_says_them() -> None:
    assert describe(InvalidInput("A session title cannot be empty.")) == "A session title cannot be empty."
    assert settings_page(InvalidInput("x")) is None


def test_a_refused_connection_names_the_url_and_the_cause_and_offers_the_providers_page() -> None:
    text = describe(NetworkError(reason="refused", url=URL))
    assert URL in text and "refused" in text and "timed out" not in text
    assert settings_page(NetworkError(reason="refused", url=URL)) == "Providers"


def test_an_unresolvable_host_names_the_host() -> None:
    text = describe(NetworkError(reason="dns", url="https://api.example.invalid/v1"))
    assert "api.example.invalid" in text and "does not resolve" in text


def test_a_reply_cut_off_by_the_server_is_worded_as_cut_off_and_kept() -> None:
    cut = NetworkError(reason="cut", url=URL)
    text = turn_error_text(event(cut), cut_off=True)
    assert text.startswith("The reply was cut off") and URL in text and "closed the connection" in text
    assert "kept" in text and "Could not reach" not in text and "stopped" not in text
    assert "before replying" in turn_error_text(event(cut), cut_off=False)
    down = ProviderUnavailable("overloaded")
    text = turn_error_text(event(down), cut_off=True)
    assert text.startswith("The reply was cut off.") and down.message in text and "kept" in text


def test_an_event_without_its_error_shows_its_message_as_it_came() -> None:
    assert turn_error_text(ChatError("network", "As sent."), cut_off=False) == "As sent."


def test_the_size_refusal_says_how_big_the_text_is_and_what_fits() -> None:
    text = too_long_text(2_000_000)
    assert "2,000,000 characters" in text and "1,000,000" in text


def test_a_window_set_on_a_guess_names_the_button_that_undoes_it_not_a_command() -> None:
    notice = Notice("The server seems to cut the conversation; go back to the automatic window.", warning=True,
                    guessed_window_of="llama3")
    text = notice_text(notice)
    assert "Use the automatic window" in text and "palimpsest" not in text
    assert notice_text(Notice("Plain.")) == "Plain."


def test_a_deadline_names_the_page_that_sets_it_and_offers_it() -> None:
    idle = ProviderTimeout("idle", 300)
    assert describe(idle).endswith("allow a longer silence in Settings › Compaction.")
    assert settings_page(idle) == "Compaction" and settings_page(ProviderTimeout("headers", 60)) is None
