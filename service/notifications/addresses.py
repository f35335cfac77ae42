"""Which network addresses the service may send to (webhooks): public ones only.

Python's ``ipaddress`` calls ``::127.0.0.1`` or ``64:ff9b::a9fe:a9fe`` global, yet
each of them reaches a loopback or link-local IPv4 address through a translation
the network may do (IPv4-compatible, NAT64, 6to4, Teredo...). So an address is
refused when it is, or embeds, an IPv4 or IPv6 address that is not public:

- IPv4: loopback, private (RFC 1918), link-local (169.254/16, the cloud metadata
  address among them), shared (100.64/10), reserved, multicast, unspecified,
  broadcast, documentation and benchmarking ranges (whatever ``is_global`` is not);
- IPv6: loopback, unspecified, link-local, site-local (fec0::/10), unique local
  (fc00::/7), multicast, documentation, discard and the other non-global ranges;
- IPv6 forms that carry an IPv4 address: mapped (``::ffff:a.b.c.d``), translated
  (``::ffff:0:a.b.c.d``), compatible (``::a.b.c.d``, deprecated: refused whatever
  it embeds), NAT64 (``64:ff9b::/96`` checked by what it embeds; the local-use
  ``64:ff9b:1::/48`` refused), 6to4 (``2002::/16``), Teredo (``2001::/32``, its
  server and its client address).

``resolve`` looks a host name up once; the caller connects to an address it was
given (``service.notifications.webhooks``), so the answer checked is the answer used (no DNS
rebinding between the check and the connection).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Sequence[Address]]

NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052, the well-known prefix
NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215, local use
COMPATIBLE = ipaddress.ip_network("::/96")  # RFC 4291 2.5.5.1, deprecated
TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")  # RFC 2765 (SIIT)
TEREDO = ipaddress.ip_network("2001::/32")
SIX_TO_FOUR = ipaddress.ip_network("2002::/16")
SHARED = ipaddress.ip_network("100.64.0.0/10")  # RFC 6598
PRIVATE = [ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")]
BROADCAST = ipaddress.ip_address("255.255.255.255")
NOT_GLOBAL_V6 = [
    (ipaddress.ip_network("fe80::/10"), "link-local"),
    (ipaddress.ip_network("fec0::/10"), "site-local"),
    (ipaddress.ip_network("ff00::/8"), "multicast"),
    (ipaddress.ip_network("fc00::/7"), "unique local"),
    (ipaddress.ip_network("2001:db8::/32"), "documentation"),
    (ipaddress.ip_network("3fff::/20"), "documentation"),  # RFC 9637
    (ipaddress.ip_network("100::/64"), "discard-only"),
]


def _v4_kind(address: ipaddress.IPv4Address) -> str | None:
    """What ``address`` is, if not public: loopback, private, link-local…"""
    if address.is_unspecified:
        return "unspecified"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if address in SHARED:
        return "shared (carrier-grade NAT)"
    if any(address in net for net in PRIVATE):
        return "private"
    if address == BROADCAST:
        return "broadcast"
    if address.is_private or address.is_reserved or not address.is_global:
        return "reserved"
    return None


def _a(kind: str) -> str:
    """The article: "an IPv4…", "a unique local…", "a loopback…"."""
    vowel = kind[0] in "aeiouAEIOU" and not kind.startswith(("uni", "use"))
    return ("an " if vowel else "a ") + kind


def refusal(address: Address) -> str | None:
    """Why ``address`` may not be sent to, as words ("a loopback address", "a NAT64
    address of a link-local one"…), or None for a public address."""
    if isinstance(address, ipaddress.IPv4Address):
        kind = _v4_kind(address)
        return f"{_a(kind)} address" if kind else None
    embedded: tuple[str, ipaddress.IPv4Address | None] | None = None
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.ipv4_mapped is not None:
        embedded = ("an IPv4-mapped", address.ipv4_mapped)
    elif address in TRANSLATED:
        embedded = ("an IPv4-translated", ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    elif address in COMPATIBLE:
        return "an IPv4-compatible address (deprecated)"
    elif address in NAT64:
        embedded = ("a NAT64", ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    elif address in NAT64_LOCAL:
        return "a local-use NAT64 address"
    elif address in SIX_TO_FOUR:
        embedded = ("a 6to4", address.sixtofour)
    elif address in TEREDO:
        pair = address.teredo
        if pair is None:  # pragma: no cover - every 2001::/32 address has its pair
            return "a Teredo address"
        for part in pair:
            kind = _v4_kind(part)
            if kind:
                return f"a Teredo address through {_a(kind)} one"
        return None
    if embedded is not None:
        form, inner = embedded
        kind = _v4_kind(inner) if inner is not None else "reserved"
        return f"{form} address of {_a(kind)} one" if kind else None
    for net, kind in NOT_GLOBAL_V6:
        if address in net:
            return f"{_a(kind)} address"
    if address.is_private or address.is_reserved or not address.is_global:
        return "a reserved address"
    return None


def literal(host: str) -> Address | None:
    """The address ``host`` spells (``[…]`` brackets removed), or None for a name."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def system_resolver(host: str, port: int) -> list[Address]:
    """Every address the system's resolver gives ``host`` (TCP), in its order."""
    infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    found: list[Address] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).partition("%")[0])
        if address not in found:
            found.append(address)
    return found


class Unresolvable(Exception):
    """The host has no address."""


class Refused(Exception):
    """The host is, or resolves to, an address the service does not send to."""


def resolve(host: str, port: int, resolver: Resolver = system_resolver) -> list[Address]:
    """``host``'s addresses, looked up once (a literal address is itself).

    ``Unresolvable`` when it has none."""
    spelled = literal(host)
    if spelled is not None:
        return [spelled]
    try:
        found = list(resolver(host, port))
    except (OSError, UnicodeError, ValueError) as exc:
        raise Unresolvable(f"{host} does not resolve") from exc
    if not found:
        raise Unresolvable(f"{host} does not resolve")
    return found


def public_only(host: str, addresses: Sequence[Address]) -> None:
    """``Refused`` unless every one of ``host``'s ``addresses`` is public (a name with one
    private address among public ones is refused: which one a client takes is not
    ours to choose)."""
    for address in addresses:
        why = refusal(address)
        if why is not None:
            shown = host if literal(host) is not None else f"{host} ({address})"
            raise Refused(f"{shown} is {why}")
