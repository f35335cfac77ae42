"""``/healthz`` and ``/readyz`` on real processes: the embedded default, and two web
processes on PostgreSQL whose Redis goes away (not ready, still alive) and comes back."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

from tests.servers import base_env, embedded, free_port, production, start, start_redis


def test_the_embedded_default_is_alive_and_ready(tmp_path):
    with embedded(tmp_path) as server:
        http = server.http(prefix="")
        assert http.call("GET", "/healthz").json == {"status": "ok"}
        ready = http.call("GET", "/readyz")
        assert ready.status == 200 and ready.json["ready"] is True


def test_two_web_processes_are_not_ready_while_redis_is_away(tmp_path, pg_schema, redis_server):
    _, url = pg_schema
    port = free_port()
    redis = start_redis(redis_server, port)
    try:
        with production(
            tmp_path, url, f"redis://127.0.0.1:{port}/0", queue=f"h-{tmp_path.name[-8:]}"
        ) as servers:
            web = [s.http(prefix="") for s in servers[:2]]
            for http in web:
                ready = http.call("GET", "/readyz")
                assert ready.status == 200 and ready.json["checks"]["redis"]["ok"], ready.json
            redis.terminate()
            redis.wait(timeout=10)
            for http in web:
                ready = http.call("GET", "/readyz")
                assert ready.status == 503 and ready.json["code"] == "not_ready"
                assert "Redis cannot be reached" in ready.json["detail"]
                assert ready.headers["content-type"] == "application/problem+json"
                assert http.call("GET", "/healthz").status == 200  # alive all the same
            redis = start_redis(redis_server, port)
            for http in web:
                for _ in range(50):
                    if http.call("GET", "/readyz").status == 200:
                        break
                    time.sleep(0.1)
                assert http.call("GET", "/readyz").status == 200
    finally:
        redis.kill()


class Cuttable:
    """A TCP forwarder to PostgreSQL that can be cut (its connections closed, new ones
    refused) and put back on the same port: the database going away, as seen from the
    service."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conns: list[socket.socket] = []
        self.listener: socket.socket | None = None
        self.hung = threading.Event()  # set: bytes are taken and never passed on
        self.restore()

    def restore(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        assert self.listener is not None
        with contextlib.suppress(OSError):  # wakes the accept() (close alone would not)
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        for conn in self.conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()
        self.conns.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", 5432))
            self.conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := a.recv(65536):
                while self.hung.is_set():
                    time.sleep(0.05)
                b.sendall(data)
        with contextlib.suppress(OSError):
            b.shutdown(socket.SHUT_WR)


@contextlib.contextmanager
def behind_a_forwarder(tmp_path, pg_schema):
    """A gunicorn server whose PostgreSQL is reached through a ``Cuttable``, ready:
    (its Http, the forwarder)."""
    _, url = pg_schema
    hop = Cuttable(free_port())
    via = url.replace("127.0.0.1:5432", f"127.0.0.1:{hop.port}")
    assert via != url
    port = free_port()
    env = base_env(DATABASE_URL=via, TONGIAKI_DATA_DIR=str(tmp_path))
    server = start(
        ["serve", "--workers", "1", "--port", str(port)], env, tmp_path / "web.log", port
    )
    try:
        http = server.http(prefix="")
        assert http.call("GET", "/readyz").status == 200
        yield http, hop
    finally:
        hop.hung.clear()
        server.stop()
        hop.cut()


def not_ready_at_once(http, says: str) -> str:
    """Three probes, each a 503 naming the database, each within 1.5 s: the last detail."""
    for _ in range(3):
        began = time.monotonic()
        ready = http.call("GET", "/readyz")
        took = time.monotonic() - began
        assert ready.status == 503 and ready.json["code"] == "not_ready", ready.json
        assert says in ready.json["detail"], ready.json
        assert took < 1.5, took
    return ready.json["detail"]


def ready_again(http) -> None:
    for _ in range(100):
        if http.call("GET", "/readyz").status == 200:
            break
        time.sleep(0.1)
    assert http.call("GET", "/readyz").status == 200


def test_readyz_says_within_a_second_and_a_half_that_the_database_is_away(tmp_path, pg_schema):
    """A readiness probe's own timeout is often 1 s: /readyz must not wait for the pool's
    5 s (requests do) before it says the database cannot be reached."""
    with behind_a_forwarder(tmp_path, pg_schema) as (http, hop):
        hop.cut()
        not_ready_at_once(http, "database cannot be reached")
        hop.restore()
        ready_again(http)


def test_readyz_says_within_a_second_and_a_half_that_the_database_stopped_answering(
    tmp_path, pg_schema
):
    """A database that takes the bytes and never answers (hung, or cut off without a
    reset): requests would wait on it, /readyz must not."""
    with behind_a_forwarder(tmp_path, pg_schema) as (http, hop):
        hop.hung.set()
        assert "\n" not in not_ready_at_once(http, "did not answer")
        hop.hung.clear()
        ready_again(http)
