"""What an account may choose in its notification settings (422 otherwise): a webhook URL
the service will POST to — of one shape, its host resolving, to public addresses only
(no request forged toward the service's own network) —, an e-mail address, the kinds,
how ``your_move`` reminders go and a quiet period."""

from __future__ import annotations

import ipaddress
import re
from typing import Any
from urllib.parse import urlsplit

from projections.models import NOTICE_KINDS
from service.errors import BadRequest
from service.notifications import webhooks
from service.notifications.addresses import (
    Refused,
    Resolver,
    Unresolvable,
    public_only,
    resolve,
    system_resolver,
)
from service.notifications.digests import MODES
from service.play.text import EMAIL_PATTERN

MAX_URL = 2000
MAX_EMAIL = 254
MAX_QUIET_MINUTES = 1440  # a day
EMAIL = re.compile(EMAIL_PATTERN)


def check_choices(
    choices: dict[str, Any],
    changes: dict[str, Any],
    allow_private: bool,
    resolver: Resolver = system_resolver,
) -> None:
    """Refuse (422) ``choices`` (``service.notifications.preferences.chosen``) an account
    may not make; an address is checked when ``changes`` give a new one."""
    your_move, quiet = choices["your_move"], choices["quiet_minutes"]
    if your_move not in MODES:
        raise BadRequest("bad_your_move", f"your_move is one of {', '.join(MODES)}")
    if quiet is not None and not 1 <= quiet <= MAX_QUIET_MINUTES:
        raise BadRequest("bad_quiet_minutes", f"quiet_minutes is 1 to {MAX_QUIET_MINUTES}, or null")
    if "webhook_url" in changes and choices["webhook_url"] is not None:
        check_webhook(choices["webhook_url"], allow_private, resolver)
    if "email" in changes and choices["email"] is not None:
        check_email(choices["email"])
    if not set(choices["kinds"]) <= set(NOTICE_KINDS):
        raise BadRequest("bad_kinds", f"kinds are among {', '.join(NOTICE_KINDS)}")


def malformed_host(host: str) -> str | None:
    """Why ``host`` is neither an IP address nor a DNS name (an empty label, a label
    over 63 characters, over 253 in all), or None. Checked before resolving: gevent's
    resolver printed a traceback to the log for such names."""
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    if len(host.rstrip(".")) > 253:
        return "a host name has at most 253 characters"
    if not re.fullmatch(webhooks.HOST_NAME, host):
        return (
            f"{host[:80]!r} is not a host name: labels of 1 to 63 letters, digits, hyphens"
            " or underscores, between dots"
        )
    return None


def private_address(host: str, resolver: Resolver = system_resolver) -> str | None:
    """Why ``host`` may not receive webhooks, or None: it does not resolve, or one of its
    addresses is, or embeds, one that is not public (``service.notifications.addresses``)."""
    if (why := malformed_host(host)) is not None:
        return why
    try:
        public_only(host, resolve(host, 0, resolver))
    except Unresolvable as exc:
        return str(exc)
    except Refused as exc:
        return str(exc)
    return None


def check_webhook(url: str, allow_private: bool, resolver: Resolver = system_resolver) -> str:
    """A webhook URL the service will POST to (422 ``bad_webhook`` otherwise): of the
    shape ``service.notifications.webhooks.URL_PATTERN`` says (the API's document says the
    same), its host resolves, to public addresses only unless ``allow_private``."""
    if len(url) > MAX_URL:
        raise BadRequest("bad_webhook", f"a webhook URL has at most {MAX_URL} characters")
    if any(not 33 <= ord(c) <= 126 for c in url):
        raise BadRequest(
            "bad_webhook",
            "a webhook URL is printable ASCII without spaces (a host name in another script"
            " in its xn-- form, other characters %-encoded)",
        )
    if not webhooks.URL.fullmatch(url):
        raise BadRequest("bad_webhook", f"not a webhook URL: {_url_problem(url)}")
    host = urlsplit(url).hostname or ""
    if len(host.rstrip(".")) > 253:
        raise BadRequest("bad_webhook", "a webhook URL's host name has at most 253 characters")
    why = private_address(host, resolver)
    if why is not None and why.endswith("does not resolve"):
        raise BadRequest("bad_webhook", f"a webhook URL's host must resolve: {why}")
    if why is not None and not allow_private:
        raise BadRequest("bad_webhook", f"webhooks go to public addresses only: {why}")
    return url


def _url_problem(url: str) -> str:
    """What is wrong with a URL of another shape, in a few words."""
    scheme, _, rest = url.partition("://")
    if scheme not in ("http", "https") or not _:
        return "it is http:// or https://"
    authority = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    if "@" in authority:
        return "it holds no user name or password"
    host, port = authority, ""
    if authority.startswith("["):
        inside, close, after = authority[1:].partition("]")
        if not close or (after and not after.startswith(":")):
            return "an address in brackets is an IPv6 address, then at most a port"
        if not re.fullmatch(webhooks.IPV6, inside):
            return f"[{inside[:60]}] is not an IPv6 address"
        port = after[1:]
    else:
        host, _, port = authority.partition(":")
        if not host:
            return "it has a host"
        if not re.fullmatch(webhooks.HOST_NAME, host):
            return (
                f"{host[:80]!r} is not a host name: labels of 1 to 63 letters, digits,"
                " hyphens or underscores, between dots"
            )
    if port and not re.fullmatch(webhooks.PORT, port):
        return "its port is a number from 1 to 65535"
    return "it is http(s)://host[:port][/path]"


def check_email(address: str) -> str:
    if len(address) > MAX_EMAIL:
        raise BadRequest(
            "bad_email", f"email: an e-mail address has at most {MAX_EMAIL} characters"
        )
    if not EMAIL.fullmatch(address):
        raise BadRequest(
            "bad_email",
            "email: an e-mail address is name@example.org: the name of printable ASCII without"
            " spaces, quotes or control characters, dots only between characters; the domain"
            " of labels of letters, digits and hyphens (not at either end), the last one"
            " starting with a letter",
        )
    return address
