"""The app's wording of domain errors: no CLI command reaches a dialog, a cut-off reply is named as such."""

from __future__ import annotations

import pytest

from domain.errors import AuthenticationFailed, InvalidInput, NetworkError, ProviderUnavailable
from ui.viewmodels.wording import describe, gui_text, too_long_text, turn_error_text

CLI_SENTENCES = [
    AuthenticationFailed("Anthropic", missing=True).message,
    AuthenticationFailed("OpenAI").message,
    "No provider is configured. Add one in Settings (or `palimpsest providers add`).",
    "The context window of llama3 is unknown; set it with `palimpsest models add`.",
    "The context window of llama3 is a guess (8,192 tokens); set the real one in Settings › Models or with "
    "`palimpsest models add`.",
]


@pytest.mark.parametrize("sentence", CLI_SENTENCES)
def test_domain_sentences_naming_a_cli_command_name_the_place_in_settings_instead(sentence: str) -> None:
    assert "palimpsest" in sentence  # what the domain (shared with the CLI) says
    text = gui_text(sentence)
    assert "palimpsest" not in text and "`" not in text
    assert "Settings › Providers" in text or "Settings › Models" in text


def test_a_missing_key_tells_the_user_to_add_one_in_settings_providers() -> None:
    text = describe(AuthenticationFailed("Anthropic", missing=True))
    assert text == ("No API key is set for Anthropic. Add a key in Settings › Providers, or set the provider's "
                    "environment variable.")


def test_an_unknown_cli_mention_is_dropped_and_other_sentences_are_untouched() -> None:
    assert gui_text("Delete its key first (palimpsest keys delete x); then retry.") == \
        "Delete its key first; then retry."
    assert gui_text(InvalidInput("A session title cannot be empty.").message) == "A session title cannot be empty."


def test_a_reply_cut_off_after_text_is_worded_as_cut_off_and_kept() -> None:
    network = NetworkError("connection reset")
    cut = turn_error_text(network.kind, network.message, cut_off=True)
    assert cut.startswith("The reply was cut off") and "(connection reset)" in cut and "kept" in cut
    assert "Could not reach" not in cut
    assert turn_error_text(network.kind, network.message, cut_off=False) == network.message
    down = ProviderUnavailable("overloaded")
    cut = turn_error_text(down.kind, down.message, cut_off=True)
    assert cut.startswith("The reply was cut off.") and down.message in cut and "kept" in cut


def test_the_size_refusal_says_how_big_the_text_is_and_what_fits() -> None:
    text = too_long_text(2_000_000)
    assert "2,000,000 characters" in text and "1,000,000" in text
