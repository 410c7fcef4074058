"""What the desktop app says about an error, worded from the error's own fields (its type, a network failure's reason
and URL, a key that is missing or refused): the place in the app that fixes it, never a command line (no Qt, no I/O).
"""

from __future__ import annotations

from domain.errors import (
    AuthenticationFailed,
    ModelRetired,
    NetworkError,
    NoProviderConfigured,
    PalimpsestError,
    ProviderError,
    ProviderTimeout,
    host_of,
)
from domain.events import ChatError, Notice

PROVIDERS_PAGE = "Providers"  # the Settings page that sets keys and base URLs
MODELS_PAGE = "Models"
COMPACTION_PAGE = "Compaction"  # the deadlines
KEPT = "The part that arrived is kept above, marked incomplete."
MAX_MESSAGE_CHARS = 1_000_000  # what the command line accepts too; larger pastes never reach the backend


def place(page: str) -> str:
    """How the app names one of its Settings pages."""
    return f"Settings › {page}"


def describe(error: BaseException) -> str:
    """The app's sentence for an error: known errors from their fields, bugs named as such."""
    if isinstance(error, PalimpsestError):
        return _with_request_id(error, _sentence(error))
    return f"Something went wrong inside Palimpsest ({type(error).__name__}: {error}). Details are in the log."


def settings_page(error: BaseException | None) -> str | None:
    """The Settings page whose form fixes the error (a key, a base URL), or None when none does."""
    if isinstance(error, (AuthenticationFailed, NoProviderConfigured)):
        return PROVIDERS_PAGE
    if isinstance(error, NetworkError) and error.reason in ("refused", "dns", "tls", "connect_timeout"):
        return PROVIDERS_PAGE
    if isinstance(error, ProviderTimeout) and error.deadline in ("idle", "round"):
        return COMPACTION_PAGE
    return None


def successor_of(error: BaseException | None) -> tuple[str, str, str] | None:
    """For a retired model's error: the (provider, model, name) its vendor names instead, which the error row offers
    to switch to and retry; None otherwise."""
    if isinstance(error, ModelRetired) and error.successor:
        return error.provider_id, error.successor, error.successor_name or error.successor
    return None


def retired_without_successor(error: BaseException | None) -> bool:
    """Whether the error is a retired model's with no successor named: its row offers the model picker instead."""
    return isinstance(error, ModelRetired) and not error.successor


def turn_error_text(event: ChatError, *, cut_off: bool) -> str:
    """The text of a failed turn's error row; `cut_off` when part of the reply had already arrived (it is kept).
    An event without its error (a stand-in backend) shows its message as it came."""
    error = event.error
    if isinstance(error, NetworkError) and error.reason == "cut" and cut_off:
        where = f"the server at {error.url}" if error.url else "the provider"
        return _with_request_id(error, f"The reply was cut off: {where} closed the connection before it was "
                                       f"complete. {KEPT}")
    message = describe(error) if error is not None else event.message
    if not cut_off:
        return message
    if isinstance(error, NetworkError):
        return f"The reply was cut off: {_lower_first(message)} {KEPT}"
    return f"The reply was cut off. {message} {KEPT}"


def notice_text(notice: Notice) -> str:
    """A notice as the app says it: a window set on a guess names the button that undoes it."""
    if notice.guessed_window_of:
        return f"{notice.message} (the gauge's panel: “Use the automatic window”)"
    return notice.message


def too_long_text(chars: int) -> str:
    """Why a composer text is refused before it is sent: how big it is and what fits."""
    return (f"This message is too long: {chars:,} characters, and at most {MAX_MESSAGE_CHARS:,} characters can be "
            "sent at once. Shorten it or split it; it stays in the box below.")


def _sentence(error: PalimpsestError) -> str:
    providers = place(PROVIDERS_PAGE)
    if isinstance(error, AuthenticationFailed):
        what = (f"No API key is set for {error.provider_name}. Add a key" if error.missing
                else f"{error.provider_name} rejected the API key. Add or fix the key")
        return f"{what} in {providers}, or set the provider's environment variable."
    if isinstance(error, NoProviderConfigured):
        return f"No provider is configured. Add one in {providers}."
    if isinstance(error, NetworkError):
        return _network(error, providers)
    if isinstance(error, ProviderTimeout) and error.deadline in ("idle", "round"):
        return f"{error.message.rstrip('.')} in {place(COMPACTION_PAGE)}."
    return error.message


def _network(error: NetworkError, providers: str) -> str:
    url = error.url or "the provider"
    extra = f" ({error.detail})" if error.detail else ""
    match error.reason:
        case "refused":
            return (f"Could not connect to {url}: the connection was refused, so nothing is listening there. "
                    f"Check that the server is running, and the base URL in {providers}.")
        case "dns":
            return (f"Could not find the host {host_of(error.url) or 'of the provider'}: the name does not resolve. "
                    f"Check the base URL in {providers} and the network connection.")
        case "tls":
            return f"Could not make a secure connection to {url}{extra}. Check the base URL in {providers}."
        case "connect_timeout":
            return (f"Could not connect to {url}: it did not answer in time (the host may be down, or a firewall "
                    f"drops the connection). Check the base URL in {providers} and the network connection.")
        case "timeout":
            return f"The request to {url} timed out{extra}. Check the network connection, then try again."
        case "cut":
            return f"The server at {url} closed the connection before replying{extra}. Try again."
    return f"Could not reach {url}{extra}. Check the network connection, and the base URL in {providers}."


def _with_request_id(error: PalimpsestError, text: str) -> str:
    request_id = error.request_id if isinstance(error, ProviderError) else None
    return f"{text.rstrip()} (request id {request_id})" if request_id and request_id not in text else text


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text
