"""Webhooks reach public addresses only, and only the address that was checked
(issue 26: SSRF through IPv6 forms, DNS rebinding).

Every IPv6 form that carries a loopback, private, link-local... IPv4 address is
refused when saved and before each delivery; a host is resolved once per
delivery and the POST goes to an address of that one answer.
"""

from __future__ import annotations

import ipaddress
import socket
import threading

import pytest

from service.app import create_app
from service.notifications import webhooks
from service.notifications.addresses import literal, refusal
from service.runtime.settings import Settings
from service.store.sqlite import SQLiteEventStore
from tests.service.api import Player
from tests.service.test_notify import Receiver, _game_ann_first, until

# what outside probes sent (issue 26), and the other forms that embed an IPv4 address
REFUSED = [
    "::127.0.0.1",  # IPv4-compatible loopback
    "::a9fe:a9fe",  # IPv4-compatible 169.254.169.254 (cloud metadata)
    "64:ff9b::a9fe:a9fe",  # NAT64 of the metadata address
    "64:ff9b::7f00:1",  # NAT64 of loopback
    "64:ff9b:1::a00:1",  # local-use NAT64 (RFC 8215)
    "2002:7f00:1::",  # 6to4 of 127.0.0.1
    "2002:a00:1::1",  # 6to4 of 10.0.0.1
    "::ffff:0:7f00:1",  # IPv4-translated loopback
    "::ffff:127.0.0.1",  # IPv4-mapped loopback
    "::ffff:169.254.169.254",
    "::ffff:100.64.0.1",  # mapped shared address space
    "fec0::1",  # site-local
    "fd12:3456::1",  # unique local
    "fc00::1",
    "fe80::1",  # link-local
    "ff02::1",  # multicast
    "::",
    "::1",
    "2001:db8::1",  # documentation
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo, client 192.0.2.45
    "2001:0:808:808::8080:fffe",  # Teredo, client 127.0.0.1 (obfuscated)
    "2001:0:a00:1::1",  # Teredo, server 10.0.0.1
    "127.0.0.1",
    "127.1.2.3",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",  # shared (carrier-grade NAT)
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.1",
    "240.0.0.1",
    "192.0.2.1",
    "198.18.0.1",
    "3fff::1",  # documentation (RFC 9637)
    "100::1",  # discard-only
]
PUBLIC = ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "64:ff9b::808:808", "2002:808:808::1"]


@pytest.mark.parametrize("address", REFUSED)
def test_an_address_that_is_or_embeds_a_non_public_one_is_refused(address):
    assert refusal(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize("address", PUBLIC)
def test_a_public_address_is_allowed(address):
    assert refusal(ipaddress.ip_address(address)) is None


@pytest.fixture
def strict(tmp_path):
    """An embedded app that sends webhooks to public addresses only (the default)."""
    settings = Settings(data_dir=tmp_path, testing=True, rate_limits={}, notify_backoff=(0.2, 0.2))
    store = SQLiteEventStore(tmp_path / "w.db")
    app = create_app(settings, store=store)
    yield app
    store.close()


@pytest.mark.parametrize("address", REFUSED)
def test_each_form_is_refused_when_saved(strict, address):
    client = strict.test_client()
    ann = Player(client, "ann")
    host = f"[{address}]" if ":" in address else address
    r = client.put(
        "/api/v1/me/notifications/settings",
        json={"webhook_url": f"http://{host}:8080/hook"},
        headers=ann.headers,
    )
    assert r.status_code == 422 and r.json["code"] == "bad_webhook", (address, r.json)
    assert "address" in r.json["detail"]
    assert ann.get("/me/notifications/settings").json["webhook_url"] is None


class Rebinding:
    """A resolver that answers a public address first, then a private one (DNS
    rebinding), counting its lookups."""

    def __init__(self, first: str, then: str) -> None:
        self.answers = [first, then]
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, host: str, port: int) -> list:
        with self.lock:
            self.calls += 1
            answer = self.answers[min(self.calls, len(self.answers)) - 1]
        return [ipaddress.ip_address(answer)]


def test_a_host_that_rebinds_to_a_private_address_gets_nothing(strict):
    """Saved while it resolved to a public address; at delivery it resolves to
    127.0.0.1: refused, and nothing connects anywhere."""
    notifier = strict.extensions["tongiaki.notify"]
    notifier.resolver = Rebinding("93.184.216.34", "127.0.0.1")
    connected: list[tuple[str, int]] = []
    original = webhooks.open_socket
    webhooks.open_socket = lambda where, timeout: connected.append(where) or original(where, 1)
    try:
        client = strict.test_client()
        ann = Player(client, "ann")
        r = client.put(
            "/api/v1/me/notifications/settings",
            json={"webhook_url": "http://hooks.example.org/x", "kinds": ["your_move"]},
            headers=ann.headers,
        )
        assert r.status_code == 200, r.json
        _game_ann_first(client, ann)

        def logged():
            shown = ann.get("/me/notifications").json["notifications"]
            return shown and shown[0]["deliveries"] and shown[0]["deliveries"][0]["log"]

        attempt = until(logged)[0]
        assert attempt["ok"] is False
        assert attempt["detail"] == "refused: hooks.example.org (127.0.0.1) is a loopback address"
        assert connected == []
    finally:
        webhooks.open_socket = original


def test_delivery_connects_to_the_address_it_checked(strict):
    """The resolver would answer 127.0.0.1 to a second lookup: there is none; the POST
    goes to the public address checked, and names the host."""
    receiver = Receiver()
    connected: list[tuple[str, int]] = []

    def connector(where: tuple[str, int], timeout: float) -> socket.socket:
        connected.append(where)  # the "public" host is played by the local receiver
        return socket.create_connection(("127.0.0.1", receiver.server.server_port), timeout)

    original = webhooks.open_socket
    webhooks.open_socket = connector
    try:
        notifier = strict.extensions["tongiaki.notify"]
        resolver = notifier.resolver = Rebinding("93.184.216.34", "93.184.216.34")
        client = strict.test_client()
        ann = Player(client, "ann")
        r = client.put(
            "/api/v1/me/notifications/settings",
            json={"webhook_url": "http://hooks.example.org:8123/x", "kinds": ["your_move"]},
            headers=ann.headers,
        )
        assert r.status_code == 200, r.json
        resolver.answers = ["93.184.216.34", "127.0.0.1"]  # from the delivery's lookup on
        resolver.calls = 0
        _game_ann_first(client, ann)
        until(lambda: receiver.received)
        headers, _ = receiver.received[0]
        assert headers["Host"] == "hooks.example.org:8123"
        assert connected == [("93.184.216.34", 8123)]
        assert resolver.calls == 1  # looked up once, for this one delivery
    finally:
        webhooks.open_socket = original
        receiver.close()


def test_literal_forms_are_refused_before_any_connection():
    sent = []
    for address in REFUSED:
        host = f"[{address}]" if ":" in address else address
        outcome = webhooks.post(
            f"http://{host}/x",
            b"{}",
            {},
            allow_private=False,
            timeout=1,
            connector=lambda where, timeout: sent.append(where),  # type: ignore[func-returns-value]
        )
        assert not outcome.ok and outcome.detail.startswith("refused:"), (address, outcome)
    assert sent == []
    assert literal("[::1]") == ipaddress.ip_address("::1")


@pytest.mark.parametrize(
    "url, words",
    [
        ("http://[2606:4700:4700::1111]junk/", "in brackets"),
        ("http://[2606:4700:4700::1111]]/", "in brackets"),
        ("http://[::1]x/", "in brackets"),
        ("https://[99EcBC48]/", "is not an IPv6 address"),
        ("http://%zz/", "is not a host name"),
        ("http://x:0/", "port is a number from 1 to 65535"),
        ("http://x:99999/", "port is a number from 1 to 65535"),
        ("http://u@example.org/", "no user name"),
        ("http://" + "a." * 130 + "com/", "at most 253"),
    ],
)
def test_a_webhook_url_of_another_shape_is_refused_in_our_words(strict, url, words):
    """A helper's re-probe: junk after a bracketed address was accepted and stored;
    Python's own exception text reached clients."""
    client = strict.test_client()
    ann = Player(client, "ann")
    r = client.put(
        "/api/v1/me/notifications/settings", json={"webhook_url": url}, headers=ann.headers
    )
    assert r.status_code == 422 and r.json["code"] == "bad_webhook", (url, r.json)
    assert words in r.json["detail"], r.json["detail"]
    assert "does not appear" not in r.json["detail"]
