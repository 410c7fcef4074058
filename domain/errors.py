"""Errors a person can act on: provider failures, storage problems, keychain and input errors."""

from __future__ import annotations

from typing import Literal


class PalimpsestError(Exception):
    """Base of every known error; `str(err)` is a plain sentence for the user, `kind` a stable tag."""

    kind = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ProviderError(PalimpsestError):
    """A model provider refused or failed a request."""

    kind = "provider_error"
    transient = False
    retry_limit: int | None = None  # at most this many retries of a transient error (None: the policy's own)
    request_id: str | None = None  # the provider's id of the failed request, for the user to quote to its support

    def with_request_id(self, request_id: str | None) -> ProviderError:
        """The same error carrying the provider's request id, named at the end of its message (once)."""
        if request_id and self.request_id is None:
            self.request_id = request_id
            self.message = f"{self.message.rstrip()} (request id {request_id})"
            self.args = (self.message,)
        return self


class AuthenticationFailed(ProviderError):
    """The API key is missing, wrong or lacks permission."""

    kind = "authentication"

    def __init__(self, provider_name: str = "the provider", *, missing: bool = False) -> None:
        if missing:
            super().__init__(f"No API key is set for {provider_name}.")
        else:
            super().__init__(f"{provider_name} rejected the API key.")
        self.provider_name, self.missing = provider_name, missing


class RateLimited(ProviderError):
    """The provider asked us to slow down."""

    kind = "rate_limited"
    transient = True

    def __init__(self, retry_after: float | None = None) -> None:
        wait = f" Try again in {retry_after:.0f} s." if retry_after else " Try again shortly."
        super().__init__("The provider is rate limiting requests." + wait)
        self.retry_after = retry_after


class ContextOverflow(ProviderError):
    """The provider refused the request as longer than the model's window.

    `tokens`: the input tokens the provider counted; `limit`: the limit it named, which is the model's input limit
    when `input_limit` (GPT-5's 272K inside a 400K window), else its whole window; `stated`: the provider's own
    figures, worded as it worded them (e.g. "188,240 input tokens + 21,333 max_tokens > 200,000 context limit"),
    which is what the message shows — never a sum or comparison the provider did not make."""

    kind = "context_overflow"

    def __init__(self, *, tokens: int | None = None, limit: int | None = None, input_limit: bool = False,
                 stated: str | None = None) -> None:
        if stated is None and tokens and limit:
            stated = f"{tokens:,} tokens > {limit:,} maximum"
        detail = f" (the provider said: {stated})" if stated else ""
        super().__init__("The conversation is longer than this model accepts" + detail + ".")
        self.tokens, self.limit, self.input_limit, self.stated = tokens, limit, input_limit, stated


class BillingError(ProviderError):
    """The account has no credit or quota left (OpenAI insufficient_quota): waiting will not help, paying will."""

    kind = "billing"

    def __init__(self, provider_name: str = "The provider", where: str | None = None, detail: str = "") -> None:
        place = where or "the provider's billing settings"
        extra = f" ({detail})" if detail else ""
        super().__init__(f"{provider_name} says the account has no quota or credit left{extra}. Add credit or raise "
                         f"the spending limit at {place}, then try again; retrying before that will not help.")


class ProviderUnavailable(ProviderError):
    """The provider is down or overloaded (5xx, overloaded_error)."""

    kind = "provider_unavailable"
    transient = True

    def __init__(self, detail: str = "") -> None:
        extra = f" ({detail})" if detail else ""
        super().__init__("The provider is unavailable or overloaded right now" + extra + ". Try again in a moment.")


NetworkFailure = Literal["refused", "dns", "tls", "connect_timeout", "timeout", "cut", "failed"]
_RETRIED_AT_ONCE: frozenset[str] = frozenset({"timeout", "cut", "failed"})


class NetworkError(ProviderError):
    """The provider could not be reached, or the connection broke: `reason` says how, `url` where (no credentials,
    no query). `refused` (nothing listens there), `dns` (the host name does not resolve), `tls` (no secure
    connection could be made) and `connect_timeout` (the host never answered: down, or a firewall dropping the
    connection) are not retried: asking again at once would fail the same way, so the person hears at once.
    `timeout` (no answer in time once connected), `cut` (the server closed the connection before the reply was
    complete) and `failed` (any other transport failure) are transient. `detail`: the transport's own words."""

    kind = "network"
    transient = True

    def __init__(self, detail: str = "", *, reason: NetworkFailure = "failed", url: str | None = None) -> None:
        self.reason, self.url, self.detail = reason, url, detail
        super().__init__(network_sentence(reason, url, detail))
        self.transient = reason in _RETRIED_AT_ONCE
        self.retry_limit = None if self.transient else 0


def host_of(url: str | None) -> str | None:
    """The host name of a URL ("http://host:8080/v1" -> "host"), or None."""
    if not url or "//" not in url:
        return None
    netloc = url.split("//", 1)[1].split("/", 1)[0].rsplit("@", 1)[-1]
    if netloc.startswith("["):
        return netloc[1:].split("]", 1)[0]
    return netloc.split(":", 1)[0] or None


def network_sentence(reason: NetworkFailure, url: str | None, detail: str = "") -> str:
    """The plain sentence of a network failure from its fields (what a log, a JSON line or a test reads)."""
    at = f" {url}" if url else " the provider"
    extra = f" ({detail})" if detail else ""
    host = host_of(url)
    match reason:
        case "refused":
            return (f"Could not connect to{at}: the connection was refused (nothing is listening there). Check "
                    "that the server is running and the base URL.")
        case "dns":
            return (f"Could not find the host {host or 'of the provider'}" + (f" ({url})" if url else "")
                    + ": the name does not resolve. Check the base URL and the network connection.")
        case "tls":
            return f"Could not make a secure connection to{at.rstrip()}{extra}. Check the base URL and its certificate."
        case "connect_timeout":
            return (f"Could not connect to{at}: it did not answer in time (the host may be down, or a firewall "
                    "drops the connection). Check the base URL and the network connection.")
        case "timeout":
            return f"The request to{at} timed out{extra}. Check the connection and the base URL, then try again."
        case "cut":
            return (f"The server at {url} closed the connection" if url else "The provider closed the connection") \
                + f" before the reply was complete{extra}. Try again."
    return f"Could not reach{at}{extra}. Check the connection and the base URL."


Deadline = Literal["headers", "idle", "round"]


def _seconds(value: float) -> str:
    return f"{value:,g}"


class ProviderTimeout(ProviderError):
    """A deadline of a request passed: no response headers in time, no data for too long, or a reply too long.

    Only the headers deadline is transient (retried once): a provider that went silent mid-reply, or a reply
    that outlasted the round, would most likely do so again."""

    kind = "timeout"

    def __init__(self, deadline: Deadline, seconds: float) -> None:
        limit = _seconds(seconds)
        messages = {
            "headers": f"The provider sent no response headers within {limit} s (headers timeout). Check its "
                       "status and the base URL, then try again.",
            "idle": f"No data from the provider for {limit} s (idle timeout). Try again, or allow a longer "
                    "silence.",
            "round": f"The reply took longer than {limit} s (round timeout). Try again, or allow longer replies.",
        }
        super().__init__(messages[deadline])
        self.deadline, self.seconds = deadline, seconds
        self.transient = deadline == "headers"
        self.retry_limit = 1 if deadline == "headers" else None


class InvalidResponse(ProviderError):
    """The provider answered with something we could not understand, or refused the request as invalid."""

    kind = "invalid_response"


class ModelNotFound(InvalidResponse):
    """The provider answered 404: it does not know the model (a retired one, a typo) or the endpoint."""


class ModelRetired(ModelNotFound):
    """A 404 for a model its vendor retired; `successor`: the model of the same provider it names instead."""

    def __init__(self, message: str, provider_id: str, successor: str | None = None,
                 successor_name: str | None = None) -> None:
        super().__init__(message)
        self.provider_id, self.successor, self.successor_name = provider_id, successor, successor_name


class ReasoningRejected(ProviderError):
    """The provider refused reasoning blocks sent back to it (an invalid signature: a rotated key, an expired or
    altered block). The turn can recover by sending the same messages once more without their reasoning blocks."""

    kind = "reasoning_rejected"

    def __init__(self, provider_name: str = "The provider", detail: str = "") -> None:
        extra = f" ({detail})" if detail else ""
        super().__init__(f"{provider_name} refused the model's earlier reasoning as no longer valid{extra}.")
        self.detail = detail


class StorageError(PalimpsestError):
    """The local database cannot be used."""

    kind = "storage"


class DatabaseUnreadable(StorageError):
    """The file at the database path is not a Palimpsest database."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(
            f"The file {path} is not a usable Palimpsest database ({reason}). "
            "It was left untouched; move it away or set PALIMPSEST_HOME to another folder."
        )
        self.path = path


class DatabaseTooNew(StorageError):
    """The database was written by a newer Palimpsest."""

    def __init__(self, path: str, revision: str) -> None:
        super().__init__(
            f"The database {path} was created by a newer version of Palimpsest (schema {revision}). "
            "It was left untouched; upgrade Palimpsest to open it."
        )
        self.path, self.revision = path, revision


class KeychainUnavailable(PalimpsestError):
    """No usable OS keychain backend exists on this machine."""

    kind = "keychain_unavailable"

    def __init__(self, detail: str = "", *, message: str | None = None) -> None:
        extra = f" ({detail})" if detail else ""
        super().__init__(
            message
            or "No system keychain is available" + extra + ". Set the key in the provider's environment "
            "variable instead (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY)."
        )


class NotFound(PalimpsestError):
    """A session, provider, model, agent or message id does not exist."""

    kind = "not_found"

    def __init__(self, what: str, ident: str) -> None:
        super().__init__(f"No {what} named {ident!r}.")
        self.what, self.ident = what, ident


class InvalidInput(PalimpsestError):
    """Input from the user that cannot be accepted as given."""

    kind = "invalid_input"


class NoProviderConfigured(InvalidInput):
    """A message was sent, or a model asked for, before any provider was set up."""

    def __init__(self) -> None:
        super().__init__("No provider is configured.")


class AttachmentUnsupported(InvalidInput):
    """The chosen model cannot take an attachment (no image input, a PDF over the provider's limit); nothing was
    sent or stored, and the user can choose another model or remove the file."""

    kind = "attachment_unsupported"


class ConversationBusy(PalimpsestError):
    """Another turn is being written in the conversation (in this process or another): one turn at a time."""

    kind = "conversation_busy"
