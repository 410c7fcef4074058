"""Save tool settings: the hosts on the user's own machine or network that http_request may reach, validated."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import replace
from urllib.parse import urlsplit

from domain.errors import InvalidInput
from domain.ports import SettingsRepository
from domain.settings import ToolSettings

MAX_ALLOWED_HOSTS = 200
MAX_NAME_CHARS = 253
SHOWN_CHARS = 60
_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")
_EXAMPLES = "a host name (localhost, nas.lan), an IP address (127.0.0.1, ::1) or a network (192.168.1.0/24)"


def allowed_host_entry(text: str) -> str:
    """One allowed host as stored: a host name in lower case, an IP address or a CIDR network in canonical form.

    Anything else is InvalidInput saying what is wrong and what to write instead (a URL or a port: the bare host,
    since every port of an allowed host is allowed; a network with host bits: the network itself)."""
    entry = text.strip()
    shown = repr(entry if len(entry) <= SHOWN_CHARS else entry[:SHOWN_CHARS] + "…")
    if not entry:
        raise InvalidInput(f"An allowed host cannot be empty; give {_EXAMPLES}.")
    if any(c.isspace() for c in entry) or "," in entry:
        raise InvalidInput(f"{shown} holds more than one host; give one host per line.")
    if "://" in entry:
        host = _url_host(entry)
        hint = f"give only its host: {host}" if host else "give only its host"
        raise InvalidInput(f"{shown} is a URL; {hint} (every port of an allowed host is allowed).")
    if "*" in entry:
        raise InvalidInput(f"{shown}: wildcards are not supported; list each host, or give a network such as "
                           "192.168.1.0/24.")
    if "/" in entry:
        return _network(entry, shown)
    bare = entry[1:-1] if entry.startswith("[") and entry.endswith("]") else entry
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        address = None
    if address is not None:
        if isinstance(address, ipaddress.IPv6Address) and address.scope_id:
            raise InvalidInput(f"{shown}: give the address without the %zone; it is allowed on every interface.")
        return str(address)
    if entry.startswith("[") or ":" in entry:
        host, sep, port = entry[1:].partition("]:") if entry.startswith("[") else entry.partition(":")
        if sep and host and port.isdigit() and (entry.startswith("[") or entry.count(":") == 1):
            raise InvalidInput(f"{shown} has a port; give only the host: {host} (every port of an allowed host is "
                               "allowed).")
        raise InvalidInput(f"{shown} is not a valid IP address; give {_EXAMPLES}.")
    return _host_name(entry, shown)


def _url_host(entry: str) -> str | None:
    try:
        return urlsplit(entry).hostname
    except ValueError:
        return None


def _network(entry: str, shown: str) -> str:
    try:
        network = ipaddress.ip_network(entry)
    except ValueError:
        try:
            interface = ipaddress.ip_interface(entry)
        except ValueError:
            raise InvalidInput(f"{shown} is not a valid network; write it as an address and a prefix length, e.g. "
                               "192.168.1.0/24 or fd00::/8.") from None
        raise InvalidInput(f"{shown} has host bits set; the network is {interface.network}. Write that, or only "
                           f"the address {interface.ip}.") from None
    if network.prefixlen == 0:
        raise InvalidInput(f"{shown} would allow every address, which turns the protection off; list the hosts or "
                           "networks you mean.")
    return str(network)


def _host_name(entry: str, shown: str) -> str:
    name = entry.rstrip(".").lower()
    try:
        ascii_name = name.encode("idna").decode("ascii") if not name.isascii() else name
    except UnicodeError:
        raise InvalidInput(f"{shown} is not a valid host name; give {_EXAMPLES}.") from None
    labels = ascii_name.split(".")
    if len(ascii_name) > MAX_NAME_CHARS or not all(_LABEL.fullmatch(label) for label in labels):
        raise InvalidInput(f"{shown} is not a valid host name; give {_EXAMPLES}.")
    if labels[-1].isdigit():
        raise InvalidInput(f"{shown} is not a valid IP address; write all four numbers, e.g. 127.0.0.1.")
    return name


def allowed_hosts_from(entries: Iterable[str]) -> tuple[str, ...]:
    """Every non-blank entry validated (allowed_host_entry), in order, repeats dropped; InvalidInput naming the first
    bad entry, or when there are more than MAX_ALLOWED_HOSTS."""
    hosts = tuple(dict.fromkeys(allowed_host_entry(e) for e in entries if e.strip()))
    if len(hosts) > MAX_ALLOWED_HOSTS:
        raise InvalidInput(f"At most {MAX_ALLOWED_HOSTS} allowed hosts can be listed (got {len(hosts)}); "
                           "use a network such as 192.168.1.0/24 to cover many.")
    return hosts


class SaveToolSettingsUseCase:
    """Validates and stores the app-wide tool settings (Settings › Tools); nothing is stored when an entry is bad."""

    def __init__(self, settings: SettingsRepository) -> None:
        self._settings = settings

    def current(self) -> ToolSettings:
        """The stored tool settings."""
        return self._settings.tool_settings()

    def __call__(self, settings: ToolSettings) -> ToolSettings:
        """The stored settings, hosts validated and normalized; InvalidInput naming the first bad entry."""
        clean = replace(settings, allowed_hosts=allowed_hosts_from(settings.allowed_hosts))
        self._settings.save_tool_settings(clean)
        return self._settings.tool_settings()


class AllowHostUseCase:
    """Adds one host to the allowed hosts (`palimpsest tools allow-host`); an already listed host stays once."""

    def __init__(self, settings: SettingsRepository) -> None:
        self._settings = settings

    def __call__(self, host: str) -> str:
        """The host as stored; InvalidInput when it is not a host name, address or network."""
        entry = allowed_host_entry(host)
        current = self._settings.tool_settings()
        hosts = allowed_hosts_from((*current.allowed_hosts, entry))
        self._settings.save_tool_settings(replace(current, allowed_hosts=hosts))
        return entry


class DisallowHostUseCase:
    """Removes one host from the allowed hosts (`palimpsest tools disallow-host`)."""

    def __init__(self, settings: SettingsRepository) -> None:
        self._settings = settings

    def __call__(self, host: str) -> str:
        """The entry removed; InvalidInput naming the listed hosts when this one is not among them."""
        current = self._settings.tool_settings()
        try:
            entry = allowed_host_entry(host)
        except InvalidInput:
            entry = host.strip()
        if entry not in current.allowed_hosts:
            listed = ", ".join(current.allowed_hosts) or "none"
            raise InvalidInput(f"{entry!r} is not an allowed host. Allowed hosts: {listed}.")
        kept = tuple(h for h in current.allowed_hosts if h != entry)
        self._settings.save_tool_settings(replace(current, allowed_hosts=kept))
        return entry
