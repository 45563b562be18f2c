"""Where a webhook may post: its address is chosen by a game master or a player, so it is
checked as an attacker's would be (server-side request forgery).

Only ``https`` unless the operator allows ``http``; the host name is resolved once, every
address it resolves to must be public (no loopback, private, shared, link-local, multicast,
unspecified or reserved address, IPv4 or IPv6, an IPv4 address mapped into IPv6 judged as the
IPv4 one), and the post then goes to the address that was checked (:class:`Target`), never to
a second resolution of the name (DNS rebinding). The operator's ``allow_hosts`` lets a host
through whatever it resolves to (a receiver on the same machine, in tests ``127.0.0.1``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""Resolves a host name and port to the addresses to connect to, as text."""


class RefusedAddress(ValueError):
    """A webhook address the service will not post to; the message says why."""


@dataclass(frozen=True)
class Target:
    """Where one post goes: the address checked, and the name the receiver knows itself by
    (the Host header, and the name TLS checks the certificate against)."""

    url: str  # as given
    scheme: str
    host: str  # the name (or the address) in the URL, lower case
    port: int
    path: str  # with its query
    address: str  # the checked address connected to

    @property
    def pinned_url(self) -> str:
        """The URL with the checked address in place of the name."""
        shown = f"[{self.address}]" if ":" in self.address else self.address
        return f"{self.scheme}://{shown}:{self.port}{self.path}"

    @property
    def host_header(self) -> str:
        default = {"https": 443, "http": 80}[self.scheme]
        name = f"[{self.host}]" if ":" in self.host else self.host
        return name if self.port == default else f"{name}:{self.port}"


def refusal(address: IPAddress) -> str | None:
    """Why ``address`` is no place to post to, or None when it is a public one."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return refusal(address.ipv4_mapped)
    for test, what in (
        ("is_unspecified", "unspecified"),
        ("is_loopback", "loopback"),
        ("is_link_local", "link-local"),
        ("is_multicast", "multicast"),
        ("is_private", "private"),
        ("is_reserved", "reserved"),
    ):
        if getattr(address, test):
            return what
    if isinstance(address, ipaddress.IPv6Address) and (
        address.sixtofour is not None or address.teredo is not None
    ):
        return "tunnelled"  # 6to4 and Teredo carry an IPv4 address that may be a private one
    if not address.is_global:
        return "not public"  # shared (100.64.0.0/10), benchmarking, documentation...
    return None


def split_url(url: str, *, allow_http: bool) -> tuple[str, str, int, str]:
    """Scheme, host (lower case), port and path of a webhook's URL; ``RefusedAddress`` when it
    is none the service posts to. Checks the shape only: what the host resolves to is checked
    at each post (:func:`resolve_target`)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as error:
        raise RefusedAddress(f"not a URL: {error}") from None
    schemes = ("https", "http") if allow_http else ("https",)
    if parts.scheme not in schemes:
        raise RefusedAddress(f"the address must start with {' or '.join(schemes)}://")
    if parts.username is not None or parts.password is not None:
        raise RefusedAddress("the address may not hold a user name or password")
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        raise RefusedAddress("the address names no host")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return parts.scheme, host, port or (443 if parts.scheme == "https" else 80), path


async def system_resolver(host: str, port: int) -> list[str]:
    """The addresses the system's resolver gives for ``host``."""
    infos = await asyncio.get_running_loop().getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
    )
    return [str(info[4][0]) for info in infos]


async def resolve_target(
    url: str,
    *,
    allow_hosts: Sequence[str] = (),
    allow_http: bool = False,
    resolver: Resolver = system_resolver,
) -> Target:
    """Resolve the host of ``url`` once and check every address it gives; the target holds the
    first, the one the post connects to. ``RefusedAddress`` says why not; an ``OSError`` is a
    resolution that failed (tried again later)."""
    scheme, host, port, path = split_url(url, allow_http=allow_http)
    allowed = {h.strip().lower().strip("[]") for h in allow_hosts}
    try:
        literal: IPAddress | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    addresses = [str(literal)] if literal is not None else list(await resolver(host, port))
    if not addresses:
        raise OSError(f"{host} resolves to no address")
    checked = [ipaddress.ip_address(a.split("%")[0]) for a in addresses]
    if host not in allowed:
        for address in checked:
            if str(address) in allowed:
                continue
            why = refusal(address)
            if why is not None:
                raise RefusedAddress(f"{host} is at a {why} address ({address})")
    return Target(url, scheme, host, port, path, str(checked[0]))
