"""The command line words errors from their fields: the command that fixes a key or a missing provider, a cut
reply named as cut off once part of it was printed, and the undo command of a window set on a guess."""

from __future__ import annotations

import io

from app.cli.chat_printer import TextChatPrinter
from app.cli.error_text import cli_text
from app.cli.jsonl import event_record
from domain.errors import AuthenticationFailed, NetworkError, NoProviderConfigured, ProviderTimeout
from domain.events import ChatError, Notice, TextDelta


def test_key_and_provider_errors_name_the_command_that_fixes_them() -> None:
    assert "`palimpsest keys set PROVIDER`" in cli_text(AuthenticationFailed("Anthropic", missing=True))
    assert cli_text(AuthenticationFailed("OpenAI")).startswith("OpenAI rejected the API key.")
    assert "`palimpsest providers add`" in cli_text(NoProviderConfigured())


def printed(*events) -> str:
    out, err = io.StringIO(), io.StringIO()
    printer = TextChatPrinter(out, err)
    for event in events:
        printer.event(event)
    return err.getvalue()


def test_a_cut_is_cut_off_after_printed_text_and_not_before() -> None:
    cut = NetworkError(reason="cut", url="http://127.0.0.1:9/v1/messages")
    after = printed(TextDelta("Half of it"), ChatError(cut.kind, cut.message, error=cut))
    assert "The reply was cut off: the server at http://127.0.0.1:9/v1/messages closed the connection" in after
    before = printed(ChatError(cut.kind, cut.message, error=cut))
    assert "cut off" not in before and "closed the connection before the reply was complete" in before


def test_a_window_set_on_a_guess_names_its_undo_command() -> None:
    err = printed(Notice("The server cuts the conversation.", warning=True, guessed_window_of="llama3"))
    assert "palimpsest models set-window llama3 auto" in err


def test_a_deadline_names_the_option_that_sets_it() -> None:
    assert "--idle-timeout SECONDS" in cli_text(ProviderTimeout("idle", 300))
    assert "Settings › Compaction" not in ProviderTimeout("idle", 300).message  # the domain names no interface


def test_a_jsonl_error_event_carries_a_network_failures_reason_and_url() -> None:
    refused = NetworkError(reason="refused", url="http://127.0.0.1:9/v1/chat/completions")
    record = event_record(ChatError(refused.kind, refused.message, retryable=True, error=refused))
    assert record["reason"] == "refused" and record["url"] == "http://127.0.0.1:9/v1/chat/completions"
    assert "reason" not in event_record(ChatError("timeout", "slow"))
