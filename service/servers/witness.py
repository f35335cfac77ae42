"""The witness's HTTP server (``tongiaki witness serve``, issue 28): C2SP tlog-witness's
``POST /add-checkpoint`` in front of ``service.transparency.witness``, one thread per
connection, bodies bounded (64 KiB) and read within a deadline; ``GET /evidence`` lists
the signed requests kept as evidence of a log's misbehaviour (JSON), ``GET /healthz``.
Every answer is also one log line (what was asked, what was answered)."""

from __future__ import annotations

import json
import logging
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from service.transparency.witness import Answer, Witness

MAX_BODY = 64 * 1024
READ_TIMEOUT = 10.0  # seconds a client has to send its request
log = logging.getLogger("tongiaki.witness")


class Handler(BaseHTTPRequestHandler):
    """One connection's requests to ``witness`` (set on the subclass ``handler_for`` makes)."""

    server_version = "tongiaki-witness"
    timeout = READ_TIMEOUT
    witness: Witness

    def do_POST(self) -> None:
        if self.path != "/add-checkpoint":
            self._answer(Answer(404, "the witness answers POST /add-checkpoint\n"))
            return
        length = self.headers.get("Content-Length", "")
        if not length.isdigit() or not 0 < int(length) <= MAX_BODY:
            said = f"a request is a body of 1 to {MAX_BODY} bytes with its Content-Length"
            self._answer(Answer(400, said + " (old <size>, the proof, the checkpoint)\n"))
            return
        try:
            body = self.rfile.read(int(length)).decode("utf-8")
        except (TimeoutError, OSError):
            return  # the client went away or stalled: nothing to answer
        except UnicodeDecodeError:
            self._answer(Answer(400, "a request is UTF-8 text\n"))
            return
        answer = self.witness.add_checkpoint(body)
        if answer.evidence:
            log.error("evidence kept: %s", answer.body.strip())
        self._answer(answer)

    def do_GET(self) -> None:
        if self.path == "/add-checkpoint":
            self._not_allowed("POST")
        elif self.path == "/healthz":
            self._answer(Answer(200, "ok\n"))
        elif self.path == "/evidence":
            kept = {origin: self.witness.state.evidence(origin) for origin in self.witness.logs}
            self._answer(Answer(200, json.dumps(kept) + "\n", "application/json"))
        else:
            self._answer(Answer(404, "no such page: POST /add-checkpoint, GET /evidence\n"))

    def _not_allowed(self, allowed: str = "GET, POST") -> None:
        self._answer(Answer(405, f"allowed here: {allowed}\n"), allow=allowed)

    def do_PUT(self) -> None:
        self._not_allowed()

    do_DELETE = do_PATCH = do_PUT

    def _answer(self, answer: Answer, allow: str = "") -> None:
        data = answer.body.encode()
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(data)))
        if allow:
            self.send_header("Allow", allow)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        log.info("%s %s", self.address_string(), format % args)


def handler_for(witness: Witness) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to ``witness``."""
    return type("WitnessHandler", (Handler,), {"witness": witness})


def serve_witness(witness: Witness, host: str, port: int) -> None:
    """Answer requests until interrupted (Ctrl-C, SIGTERM)."""
    server = ThreadingHTTPServer((host, port), handler_for(witness))
    server.daemon_threads = True
    log.info("tongiaki witness on http://%s:%s/ for %s", host, port, ", ".join(witness.logs))
    try:
        server.serve_forever()
    finally:
        server.server_close()
