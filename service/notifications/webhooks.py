"""Sending one webhook: a POST to the address that was checked, never another.

The host is looked up once (``service.notifications.addresses.resolve``); unless private
addresses are allowed, every address it has must be public; the connection then
goes to one of those very addresses. A resolver that answers a public address
to the check and a private one to the connection (DNS rebinding) gains nothing:
there is no second lookup. HTTPS still verifies the certificate against the
host *name* (SNI and hostname checking), and the ``Host`` header names it too.

No redirects are followed: a webhook answers, it does not send the service
elsewhere.
"""

from __future__ import annotations

import http.client
import re
import socket
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from service.notifications.addresses import (
    Address,
    Refused,
    Resolver,
    Unresolvable,
    public_only,
    resolve,
    system_resolver,
)


# what a webhook URL is (service.notifications.checks.check_webhook; the API's document
# says the same):
# http(s), a host - a name of labels of 1 to 63 letters, digits, hyphens or underscores,
# or an IPv6 address in brackets (RFC 3986's grammar) -, no user, a port from 1 to
# 65535, printable ASCII throughout. Whether the host resolves, and where, is checked
# on its own
def _ipv6() -> str:
    """RFC 3986's IPv6address, as a regular expression (no anchors)."""
    h16 = "[0-9A-Fa-f]{1,4}"
    dec = "(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
    ls32 = f"({h16}:{h16}|{dec}(\\.{dec}){{3}})"

    def times(n: int) -> str:  # n times "h16:"
        return f"({h16}:){{{n}}}" if n else ""

    def up_to(n: int) -> str:  # at most n + 1 h16, colon-separated, or none
        return f"(({h16}:){{0,{n}}}{h16})?"

    forms = [
        f"{times(6)}{ls32}",
        f"::{times(5)}{ls32}",
        f"({h16})?::{times(4)}{ls32}",
        f"{up_to(1)}::{times(3)}{ls32}",
        f"{up_to(2)}::{times(2)}{ls32}",
        f"{up_to(3)}::{h16}:{ls32}",
        f"{up_to(4)}::{ls32}",
        f"{up_to(5)}::{h16}",
        f"{up_to(6)}::",
    ]
    return "(" + "|".join(forms) + ")"


IPV6 = _ipv6()
HOST_NAME = r"([A-Za-z0-9_-]{1,63}\.)*[A-Za-z0-9_-]{1,63}\.?"
PORT = r"0*([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
URL_PATTERN = r"^https?://(\[" + IPV6 + r"\]|" + HOST_NAME + r")(:(" + PORT + r")?)?([/?#][!-~]*)?$"
URL = re.compile(URL_PATTERN)

# how a connection is opened: (address, port) → socket (tests record where it went)
Connector = Callable[[tuple[str, int], float], socket.socket]


def open_socket(where: tuple[str, int], timeout: float) -> socket.socket:
    return socket.create_connection(where, timeout=timeout)


@dataclass(frozen=True)
class Outcome:
    """What became of one POST: delivered or not, in a few words for the delivery log."""

    ok: bool
    detail: str
    address: str | None = None  # the address it was sent to (or last tried)


class _Pinned(http.client.HTTPConnection):
    """An HTTP connection to a given address, speaking to ``host`` by name."""

    def __init__(
        self, host: str, port: int, address: Address, timeout: float, connector: Connector
    ) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address
        self._connector = connector
        self._seconds = timeout

    def connect(self) -> None:
        self.sock = self._connector((str(self._address), self.port), self._seconds)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _PinnedTLS(_Pinned):
    """The same over TLS: the certificate is checked against the host name."""

    default_port = http.client.HTTPS_PORT

    def __init__(
        self,
        host: str,
        port: int,
        address: Address,
        timeout: float,
        connector: Connector,
        context: ssl.SSLContext,
    ) -> None:
        super().__init__(host, port, address, timeout, connector)
        self._context = context

    def connect(self) -> None:
        super().connect()
        assert self.sock is not None
        self.sock = self._context.wrap_socket(self.sock, server_hostname=self.host)


def post(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    allow_private: bool,
    timeout: float,
    resolver: Resolver = system_resolver,
    connector: Connector | None = None,
    context: ssl.SSLContext | None = None,
) -> Outcome:
    """POST ``body`` to ``url``: resolved once, checked, sent to a checked address
    (each in turn until one takes the connection). Never raises for what the network
    or the receiver does: the outcome says."""
    connector = connector or open_socket  # looked up now: tests replace it
    parts = urlsplit(url)
    host = parts.hostname or ""
    secure = parts.scheme == "https"
    try:
        port = parts.port or (443 if secure else 80)
    except ValueError as exc:
        return Outcome(False, f"not a URL: {exc}")
    try:
        addresses = resolve(host, port, resolver)
        if not allow_private:
            public_only(host, addresses)
    except (Unresolvable, Refused) as exc:
        return Outcome(False, f"refused: {exc}" if isinstance(exc, Refused) else str(exc))
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    failure = Outcome(False, "no address took the connection")
    for address in addresses:
        connection: _Pinned
        if secure:
            connection = _PinnedTLS(
                host, port, address, timeout, connector, context or ssl.create_default_context()
            )
        else:
            connection = _Pinned(host, port, address, timeout, connector)
        try:
            try:
                connection.connect()
            except (OSError, ssl.SSLError) as exc:  # this address did not take it: the next
                failure = Outcome(False, f"{type(exc).__name__}: {exc}"[:500], str(address))
                continue
            try:  # sent once, to this address only, whatever happens now
                connection.request("POST", target, body=body, headers=dict(headers))
                answer = connection.getresponse()
                answer.read(65536)
            except (OSError, http.client.HTTPException, ValueError) as exc:
                return Outcome(False, f"{type(exc).__name__}: {exc}"[:500], str(address))
            status = answer.status
        finally:
            connection.close()
        return Outcome(200 <= status < 300, f"HTTP {status}", str(address))
    return failure
