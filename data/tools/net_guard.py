"""Keeps http_request off the user's own machine and network: resolves a host once and refuses non-public addresses."""

from __future__ import annotations

import asyncio
import ipaddress
import os
import re
import socket
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""Resolves (host, port) to IP address strings, like getaddrinfo."""

ALLOW_HOSTS_ENV = "PALIMPSEST_TOOL_ALLOW_HOSTS"
ALLOW_HINT = (
    "The user can allow this host in Settings → Tools → Allowed hosts "
    f"(or with the environment variable {ALLOW_HOSTS_ENV})."
)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_ALWAYS_REFUSED = (ipaddress.IPv6Network("64:ff9b:1::/48"),)  # local-use NAT64 (RFC 8215)
_INET_ATON_PART = re.compile(r"0[xX][0-9a-fA-F]*|0[0-7]*|[1-9][0-9]*")


class TargetError(Exception):
    """A URL's host cannot be fetched; the message is written for the model to read."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RefusedTarget(TargetError):
    """The host is, or resolves to, an address on the user's own machine or network, and was not allowed."""


class UnresolvableHost(TargetError):
    """The host name does not resolve."""


@dataclass(frozen=True)
class CheckedTarget:
    """A host and port whose every address passed the check; connect only to these, in this order.

    `host` is the name for TLS (SNI and the certificate check): the normalized name, or a literal's canonical IP."""

    host: str
    port: int
    addresses: tuple[IPAddress, ...]


def parse_ip_literal(host: str) -> IPAddress | None:
    """The address a host string denotes by itself, read as the C resolver would: IPv6, or IPv4 in inet_aton forms
    (127.0.0.1, 2130706433, 0x7f.1, 0177.0.0.1, 127.1); None for a name that needs resolving."""
    text = host.strip().strip("[]")
    if ":" in text:
        try:
            return ipaddress.IPv6Address(text)
        except ValueError:
            return None
    return _inet_aton(text)


def _inet_aton(text: str) -> ipaddress.IPv4Address | None:
    parts = text.split(".")
    if not 1 <= len(parts) <= 4 or not all(_INET_ATON_PART.fullmatch(p) for p in parts):
        return None
    values = [_inet_aton_number(p) for p in parts]
    last_bits = 32 - 8 * (len(values) - 1)
    if any(v > 255 for v in values[:-1]) or values[-1] >= 1 << last_bits:
        return None
    number = 0
    for value in values[:-1]:
        number = number << 8 | value
    return ipaddress.IPv4Address(number << last_bits | values[-1])


def _inet_aton_number(part: str) -> int:
    if part[:2].lower() == "0x":
        return int(part[2:] or "0", 16)
    return int(part, 8) if part.startswith("0") else int(part)


def refusal_reason(address: IPAddress) -> str | None:
    """Why an address must not be reached without the user's say-so, or None for a public internet address."""
    if isinstance(address, ipaddress.IPv6Address):
        if any(address in net for net in _ALWAYS_REFUSED):
            return "a reserved address"
        inner = address.ipv4_mapped or (ipaddress.IPv4Address(int(address) & 0xFFFFFFFF) if address in _NAT64 else None)
        if inner is not None:  # an IPv4 address in IPv6 form (or DNS64 on an IPv6-only network): judged as IPv4
            reason = refusal_reason(inner)
            return None if reason is None else f"{reason} (embedded in the IPv6 address)"
        for embedded in _embedded_ipv4(address):
            reason = refusal_reason(embedded)
            if reason is not None:
                return f"{reason} (embedded in the IPv6 address)"
        if address.is_site_local:
            return "a site-local address (the local network)"
    checks = (
        (address.is_unspecified, "the unspecified address, which reaches this machine"),
        (address.is_loopback, "a loopback address (this machine)"),
        (address.is_link_local, "a link-local address (the local network segment, where cloud metadata lives)"),
        (address.is_multicast, "a multicast address"),
        (address.is_private, "a private address (the local network)"),
        (address.is_reserved, "a reserved address"),
        (not address.is_global, "not a public internet address"),
    )
    return next((reason for refused, reason in checks if refused), None)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    found = [address.sixtofour] if address.sixtofour is not None else []
    if address.teredo is not None:
        found.extend(address.teredo)
    return found


def _unmapped(address: IPAddress) -> IPAddress:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def normalize_host(host: str) -> str:
    """A host name for comparing: lower case, no brackets, no trailing dot."""
    return host.strip().strip("[]").rstrip(".").lower()


@dataclass(frozen=True)
class AllowedHosts:
    """Hosts the user allowed even though they are local: names match the URL's host, addresses and networks
    (CIDR) match what the host is or resolves to."""

    names: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def parse(cls, entries: Iterable[str]) -> AllowedHosts:
        """From entries such as `localhost`, `127.0.0.1`, `[::1]`, `10.0.0.0/8` (a scheme or port is ignored)."""
        names: set[str] = set()
        networks: list[IPNetwork] = []
        for raw in entries:
            entry = _host_of_entry(raw)
            if not entry:
                continue
            literal = parse_ip_literal(entry)
            if literal is not None:
                networks.append(ipaddress.ip_network(_unmapped(literal)))
                continue
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                names.add(entry)
        return cls(frozenset(names), tuple(networks))

    def __or__(self, other: AllowedHosts) -> AllowedHosts:
        return AllowedHosts(self.names | other.names, self.networks + other.networks)

    def allows_name(self, host: str) -> bool:
        """True when the host name itself was allowed."""
        return normalize_host(host) in self.names

    def allows_address(self, address: IPAddress) -> bool:
        """True when the address lies in an allowed address or network."""
        plain = _unmapped(address)
        return any(plain.version == net.version and plain in net for net in self.networks)


def _host_of_entry(raw: str) -> str:
    entry = raw.strip()
    if "://" in entry:
        entry = entry.split("://", 1)[1].split("/", 1)[0]
    if entry.startswith("["):
        entry = entry[1:].split("]", 1)[0]
    elif entry.count(":") == 1:
        entry = entry.split(":", 1)[0]
    if not entry.isascii():  # an international name, compared in the IDNA form the URL's host is resolved in
        import httpx2 as httpx  # here, not with the module: the tool's definition is loaded for every command

        try:
            entry = httpx.URL(f"http://{entry}/").raw_host.decode("ascii")
        except (httpx.InvalidURL, UnicodeError):
            pass
    return normalize_host(entry)


def allowed_from_environment(environ: Mapping[str, str]) -> AllowedHosts:
    """The hosts in PALIMPSEST_TOOL_ALLOW_HOSTS (comma- or space-separated)."""
    return AllowedHosts.parse(re.split(r"[,\s]+", environ.get(ALLOW_HOSTS_ENV, "")))


async def system_resolver(host: str, port: int) -> Sequence[str]:
    """The host's addresses from the operating system's resolver, in its preferred order, without duplicates."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class NetGuard:
    """Resolves a URL's host once and checks every address; the caller connects only to the checked addresses."""

    def __init__(
        self,
        allowed: Callable[[], AllowedHosts],
        *,
        resolver: Resolver = system_resolver,
        environ: Mapping[str, str] = os.environ,
    ) -> None:
        self._allowed = allowed
        self._resolve = resolver
        self._environ = environ

    async def check(self, host: str, port: int) -> CheckedTarget:
        """The checked target; RefusedTarget when the host is or resolves to a local address that was not allowed,
        UnresolvableHost when it does not resolve."""
        allowed = self._allowed() | allowed_from_environment(self._environ)
        name = normalize_host(host)
        literal = parse_ip_literal(name)
        addresses = (literal,) if literal is not None else await self._lookup(name, port)
        if not allowed.allows_name(name):
            for address in addresses:
                reason = refusal_reason(address)
                if reason is not None and not allowed.allows_address(address):
                    via = "" if literal is not None else f" (it resolves to {address})"
                    raise RefusedTarget(
                        f"Refused: {host} is {reason}{via}. http_request only reaches public internet addresses, "
                        f"never the user's own machine or network. {ALLOW_HINT}"
                    )
        return CheckedTarget(name if literal is None else str(literal), port, addresses)

    async def _lookup(self, name: str, port: int) -> tuple[IPAddress, ...]:
        try:
            found = await self._resolve(name, port)
        except (OSError, UnicodeError) as err:
            raise UnresolvableHost(f"The host {name} could not be resolved ({err}).") from err
        addresses: list[IPAddress] = []
        for text in found:
            try:
                addresses.append(ipaddress.ip_address(text.split("%", 1)[0]))
            except ValueError as err:
                raise UnresolvableHost(f"The host {name} resolved to {text!r}, which is not an IP address.") from err
        if not addresses:
            raise UnresolvableHost(f"The host {name} has no addresses.")
        return tuple(addresses)
