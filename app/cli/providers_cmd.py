"""`palimpsest providers ...`, `models ...` and `keys ...`: configuration commands."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, TextIO

from app.cli.error_text import cli_text
from app.cli.key_status import write_report
from app.cli.tables import table
from app.cli.text_input import read_stdin_text, require_text
from data.providers.factory import BASE_URL_VARIABLES, uses_responses
from domain.errors import InvalidInput, PalimpsestError
from domain.lookup import require_provider
from domain.models import AiModel, Provider, ProviderApi, ProviderType

if TYPE_CHECKING:
    from app.container import Container

DEFAULT_BASE_URLS = {  # the SDKs' own defaults, shown when nothing overrides them
    ProviderType.ANTHROPIC: "https://api.anthropic.com",
    ProviderType.OPENAI: "https://api.openai.com/v1",
    ProviderType.GEMINI: "https://generativelanguage.googleapis.com",
}


async def run_providers(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Dispatches the providers action."""
    if args.action == "list":
        rows = []
        for p in c.list_providers():
            url, source = effective_base_url(p.provider)
            rows.append((p.provider.id, p.provider.name, p.provider.type.value, api_label(p.provider), url, source,
                         p.key_source or "none"))
        out.write(table(("ID", "NAME", "TYPE", "API", "BASE URL", "URL FROM", "KEY"), rows) + "\n")
    elif args.action == "set":
        if args.base_url is None and args.api is None:
            raise InvalidInput("Nothing to set: give --base-url URL and/or --api responses|chat-completions|auto.")
        if args.base_url is not None:
            provider = c.set_provider_base_url(args.provider, args.base_url or None)
            out.write(f"{provider.name}: base URL {provider.base_url or 'reset to the default'}.\n")
        if args.api is not None:
            provider = c.set_provider_api(args.provider, args.api)
            out.write(f"{provider.name}: API {api_label(provider)}.\n")
    elif args.action == "add":
        provider = c.add_provider(args.name, args.base_url, args.provider_type)
        out.write(f"Added {provider.name} (id {provider.id}) at {provider.base_url}. "
                  f"Add its key with: palimpsest keys set {provider.id}\n")
    elif args.action == "delete":
        deleted = c.delete_provider(args.provider)
        out.write(f"Deleted {deleted.name} (id {deleted.id}) and its models; sessions that used it keep every "
                  "message.\n")
    return 0


def api_label(provider: Provider) -> str:
    """The API a provider speaks as `providers list` shows it: `-` for Anthropic and Gemini, the choice otherwise
    (auto with what it resolves to for the provider's base URL now)."""
    if provider.type not in (ProviderType.OPENAI, ProviderType.OPENAI_COMPATIBLE):
        return "-"
    resolved = "responses" if uses_responses(provider.api, effective_base_url(provider)[0]) else "chat-completions"
    return resolved if provider.api is not ProviderApi.AUTO else f"auto:{resolved}"


def effective_base_url(provider: Provider) -> tuple[str, str]:
    """The URL requests go to and where it comes from: the stored setting, an SDK variable, or the default."""
    if provider.base_url and provider.base_url.strip():
        return provider.base_url.strip(), "setting"
    variable = BASE_URL_VARIABLES.get(provider.type)
    value = os.environ.get(variable, "").strip() if variable else ""
    if variable and value:
        return value, variable
    return DEFAULT_BASE_URLS.get(provider.type, "(none)"), "default"


async def run_models(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Dispatches the models action."""
    status = 0
    if args.action == "add":
        model = c.add_model(args.provider, args.model, args.context_window, args.max_output)
        out.write(f"{model.provider_id}/{model.id}: context window {model.context_window_size} tokens"
                  f"{f', max output {model.max_output_tokens}' if model.max_output_tokens else ''}.\n")
        return 0
    if args.action == "set-window":
        out.write(set_window(c, args.model, args.window, args.provider) + "\n")
        return 0
    if args.refresh:
        targets = [args.provider] if args.provider else [p.provider.id for p in c.list_providers() if p.key_source]
        for target in targets:
            try:
                await c.refresh_models(target)
            except PalimpsestError as error:
                if args.provider:
                    raise
                err.write(f"palimpsest: could not refresh {target}: {cli_text(error)}\n")
                status = 1
    models = c.list_models(args.provider)
    rows, today = [], datetime.now(UTC).date()
    for m in sorted(models, key=lambda m: (m.provider_id, m.id)):
        window = "unknown" if m.context_window_size is None else str(m.context_window_size)
        flags = ",".join([f for f, on in (("default", m.is_default), ("user window", m.user_window),
                                          ("guess", m.window_is_guess)) if on] + retirement_note(m, today))
        rows.append((m.provider_id, m.id, window, m.max_output_tokens or "", m.source.value, flags))
    out.write(table(("PROVIDER", "MODEL", "WINDOW", "MAX OUT", "SOURCE", "NOTES"), rows) + "\n")
    return status


def retirement_note(model: AiModel, today: date) -> list[str]:
    """`retires 2026-11-30 (use claude-sonnet-4-6)`, or `retired …`, when the model's vendor announced its end."""
    retirement = model.retirement
    if retirement is None:
        return []
    said = "retired" if retirement.passed(today) else "retires"
    successor = f" (use {retirement.successor})" if retirement.successor else ""
    return [f"{said} {retirement.on.isoformat()}{successor}"]


def set_window(c: Container, ident: str, window: str, provider: str | None) -> str:
    """`models set-window`: a user window of N tokens, or `auto` (the automatic source's window again)."""
    provider_id, model_id = model_target(c, ident, provider)
    if window.strip().lower() == "auto":
        model = c.use_automatic_window(provider_id, model_id)
        size = f"{model.context_window_size:,} tokens" if model.context_window_size else "unknown"
        guess = ", a guess" if model.window_is_guess else ""
        return (f"{model.provider_id}/{model.id}: automatic context window, {size} "
                f"({model.window_source.value}{guess}).")
    try:
        tokens = int(window.replace(",", "").replace("_", ""))
    except ValueError:
        raise InvalidInput(f"{window!r} is not a window: give a number of tokens or `auto`.") from None
    model = c.add_model(provider_id, model_id, tokens)
    return f"{model.provider_id}/{model.id}: context window {model.context_window_size:,} tokens (set by you)."


def model_target(c: Container, ident: str, provider: str | None) -> tuple[str, str]:
    """(provider, model) of a model named by its id (with --provider, as PROVIDER/MODEL, or alone when one provider
    has a model of that id)."""
    ident = ident.strip()
    if provider:
        return provider, ident
    head, _, tail = ident.partition("/")
    if tail and c.providers.find(head) is not None:
        return head, tail
    owners = sorted({m.provider_id for m in c.list_models(None) if m.id == ident})
    if len(owners) == 1:
        return owners[0], ident
    where = f"{', '.join(owners)} all have" if owners else "no provider has"
    raise InvalidInput(f"{where} a model {ident!r}; name it as PROVIDER/MODEL or add --provider PROVIDER.")


def read_key(stdin: TextIO, prompt: str) -> str:
    """The key from piped standard input, else from a hidden prompt on the terminal."""
    if stdin.isatty():
        return require_text(getpass.getpass(prompt), "The key", secret=True)
    return read_stdin_text(stdin, line=True, what="The key")


async def run_keys(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Dispatches the keys action; a key is never printed."""
    if args.action == "set":
        found = require_provider(c.providers, args.provider)  # a typo fails before the prompt
        key = read_key(sys.stdin, f"API key for {found.name} (input hidden): ")
        if not key.strip():
            raise InvalidInput("No key was given; paste the key (or pipe it in) and try again.")
        stored = c.set_api_key(found.id, key)
        out.write(f"Stored the key for {stored.name} in the system keychain.\n")
    elif args.action == "delete":
        deleted = c.delete_api_key(args.provider)
        out.write(f"Deleted the keychain entry for {deleted.name}.\n")
    elif args.action == "status":
        write_report(c.api_key_status(), out, err)
    return 0
