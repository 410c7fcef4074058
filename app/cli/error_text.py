"""What the command line says about an error, worded from the error's own fields: the command that fixes it, a
network failure's cause and URL, a reply cut off after part of it was printed (and kept)."""

from __future__ import annotations

from domain.errors import (
    AuthenticationFailed,
    NetworkError,
    NoProviderConfigured,
    PalimpsestError,
    ProviderError,
    ProviderTimeout,
)


def cli_text(error: PalimpsestError, *, cut_off: bool = False) -> str:
    """The sentence for `error`; `cut_off` when part of the reply was already printed (it was kept): a connection
    the server closed then is a reply cut off, not a provider that could not be reached."""
    if isinstance(error, NetworkError) and error.reason == "cut" and cut_off:
        where = f"the server at {error.url}" if error.url else "the provider"
        text = (f"The reply was cut off: {where} closed the connection before it was complete. The part printed "
                "above was kept, marked incomplete.")
    elif isinstance(error, AuthenticationFailed):
        what = (f"No API key is set for {error.provider_name}." if error.missing
                else f"{error.provider_name} rejected the API key.")
        text = f"{what} Set one with `palimpsest keys set PROVIDER`, or in the provider's environment variable."
    elif isinstance(error, NoProviderConfigured):
        text = "No provider is configured. Add one with `palimpsest providers add` (or set a provider's API key)."
    elif isinstance(error, ProviderTimeout) and error.deadline == "idle":
        return f"{error.message.rstrip('.')}: --idle-timeout SECONDS, or Settings › Compaction in the desktop app."
    elif isinstance(error, ProviderTimeout) and error.deadline == "round":
        return f"{error.message.rstrip('.')} in the desktop app's Settings › Compaction."
    else:
        return error.message  # network failures included: their sentence is built from their fields
    request_id = error.request_id if isinstance(error, ProviderError) else None
    return f"{text} (request id {request_id})" if request_id and request_id not in text else text
